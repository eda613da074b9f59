"""The interpreter's settings a session keeps beside its variables: the global random
generators, the libraries' options, the warnings filters, the environment variables, `sys.path`.

Runs set these through calls (`np.random.seed(0)`, `pd.set_option(...)`, `plt.style.use(...)`),
not through variables, so pickling the namespace alone would bring a resumed session back with
them silently reset. Each setting is captured only when its module is imported, and restored
through the library's own API; one that cannot be is named in the resume report.
"""

from __future__ import annotations

import os
import sys
import types
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Baseline:
    """What a new kernel starts with: a setting equal to it is not saved."""

    environ: dict[str, str]
    path: list[str]
    filters: list[Any]

    @classmethod
    def now(cls) -> Baseline:
        return cls(environ=dict(os.environ), path=list(sys.path), filters=list(warnings.filters))


@dataclass(frozen=True)
class Setting:
    name: str
    """How the resume report names it."""
    module: str
    """Captured only when this module is imported (a setting never imports its library)."""
    capture: Callable[[types.ModuleType, Baseline], object]
    """The setting's state, or None when it is as a new kernel has it."""
    restore: Callable[[types.ModuleType, Any], None]


def _environ(_: types.ModuleType, baseline: Baseline) -> dict[str, str | None] | None:
    changed: dict[str, str | None] = {
        key: value for key, value in os.environ.items() if baseline.environ.get(key) != value
    }
    changed.update({key: None for key in baseline.environ if key not in os.environ})
    return changed or None


def _restore_environ(_: types.ModuleType, changed: dict[str, str | None]) -> None:
    for key, value in changed.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    if "TZ" in changed and hasattr(os, "tzset"):
        import time

        time.tzset()


def _path(_: types.ModuleType, baseline: Baseline) -> list[tuple[int, str]] | None:
    known = set(baseline.path)
    added = [(index, entry) for index, entry in enumerate(sys.path) if entry not in known]
    return added or None


def _restore_path(_: types.ModuleType, added: list[tuple[int, str]]) -> None:
    for index, entry in added:
        if entry not in sys.path:
            sys.path.insert(index, entry)


def _filters(module: types.ModuleType, baseline: Baseline) -> list[Any] | None:
    return list(module.filters) if module.filters != baseline.filters else None


def _pattern(entry: object) -> str:
    """A filter's message or module: compiled by `filterwarnings`, a string if set otherwise."""
    return str(getattr(entry, "pattern", entry or ""))


def _restore_filters(module: types.ModuleType, filters: list[Any]) -> None:
    module.resetwarnings()
    for action, message, category, target, lineno in filters:
        module.filterwarnings(
            action, _pattern(message), category, _pattern(target), lineno, append=True
        )


def _pandas_options(module: types.ModuleType, _: Baseline) -> dict[str, object] | None:
    from pandas._config import config  # the registry of options; pandas has no public list

    changed: dict[str, object] = {}
    for key, option in config._registered_options.items():
        if key in config._deprecated_options:
            continue
        value = module.get_option(key)
        if value is not option.defval and value != option.defval:
            changed[key] = value
    return changed or None


def _restore_pandas_options(module: types.ModuleType, changed: dict[str, object]) -> None:
    for key, value in changed.items():
        module.set_option(key, value)


def _rc_params(module: types.ModuleType, _: Baseline) -> dict[str, object] | None:
    # rcParamsOrig: the parameters as matplotlib read them at import. The backend is the kernel's.
    original = module.rcParamsOrig
    changed = {
        key: value
        for key, value in dict.items(module.rcParams)
        if key != "backend" and value != dict.get(original, key)
    }
    return changed or None


def _restore_rc_params(module: types.ModuleType, changed: dict[str, object]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated keys warn; they were valid when saved
        module.rcParams.update(changed)


def _numpy_random(module: types.ModuleType, _: Baseline) -> object:
    return module.get_state()


def _mpmath(module: types.ModuleType, _: Baseline) -> dict[str, object]:
    return {"prec": module.mp.prec, "pretty": module.mp.pretty}


def _restore_mpmath(module: types.ModuleType, state: dict[str, object]) -> None:
    module.mp.prec = state["prec"]
    module.mp.pretty = state["pretty"]


EARLY: tuple[Setting, ...] = (
    # Before the variables are unpickled: they may import modules found through these.
    Setting("os.environ", "os", _environ, _restore_environ),
    Setting("sys.path", "sys", _path, _restore_path),
)

LATE: tuple[Setting, ...] = (
    Setting("random state", "random", lambda m, _: m.getstate(), lambda m, s: m.setstate(s)),
    Setting("numpy.random state", "numpy.random", _numpy_random, lambda m, s: m.set_state(s)),
    Setting(
        "numpy print options",
        "numpy",
        lambda m, _: m.get_printoptions(),
        lambda m, s: m.set_printoptions(**s),
    ),
    Setting("numpy error handling", "numpy", lambda m, _: m.geterr(), lambda m, s: m.seterr(**s)),
    Setting("pandas options", "pandas", _pandas_options, _restore_pandas_options),
    Setting("matplotlib rcParams", "matplotlib", _rc_params, _restore_rc_params),
    Setting("warnings filters", "warnings", _filters, _restore_filters),
    Setting(
        "decimal context",
        "decimal",
        lambda m, _: m.getcontext(),
        lambda m, s: m.setcontext(s),
    ),
    Setting("mpmath precision", "mpmath", _mpmath, _restore_mpmath),
    Setting(
        "sklearn config",
        "sklearn",
        lambda m, _: m.get_config(),
        lambda m, s: m.set_config(**s),
    ),
)


def modules_of(names: Iterable[str]) -> list[str]:
    """The modules the settings named belong to (restoring one imports its module)."""
    by_name = {setting.name: setting.module for setting in (*EARLY, *LATE)}
    return [by_name[name] for name in names if name in by_name]


def capture(
    settings: tuple[Setting, ...], baseline: Baseline
) -> tuple[dict[str, object], dict[str, str]]:
    """Each imported setting's state that differs from a new kernel's, and the ones whose
    capture failed, each with why."""
    states: dict[str, object] = {}
    failed: dict[str, str] = {}
    for setting in settings:
        module = sys.modules.get(setting.module)
        if module is None:
            continue
        try:
            state = setting.capture(module, baseline)
        except Exception as exc:
            failed[setting.name] = f"could not be read: {type(exc).__name__}: {exc}"
            continue
        if state is not None:
            states[setting.name] = state
    return states, failed


def restore(settings: tuple[Setting, ...], states: dict[str, object]) -> dict[str, str]:
    """Put the saved settings back (importing their modules); the ones that fail, with why."""
    failed: dict[str, str] = {}
    by_name = {setting.name: setting for setting in settings}
    for name, state in states.items():
        setting = by_name.get(name)
        if setting is None:
            failed[name] = "not known to this version of the sandbox"
            continue
        try:
            __import__(setting.module)
            setting.restore(sys.modules[setting.module], state)
        except Exception as exc:
            failed[name] = f"{type(exc).__name__}: {exc}"
    return failed
