"""Saving and restoring a session's Python state for a session that outlives its worker.

What can be pickled (cloudpickle: also lambdas and classes or functions defined in cells) is
saved in one pickle, so two names for one object stay one object: the cells' variables and the
module attributes the session set (`module_attributes.py`); beside them, the interpreter's
settings (`settings_state.py`). Imported modules are saved as their names and imported again.
The save also lists the top-level modules a restore must load first (`SavedState.modules`): the
ones the session imported, and of the ones the worker had before the session (a snapshot's, a
spare's preload), only those its saved values need.
Everything else is named with the reason, never dropped silently: the host stores that list
and reports it when the session is resumed.

A save is two pickles one after the other: a small header (the format, and the settings that
must be back before anything is unpickled: environment variables, `sys.path`), then the body.
The other settings are pickled one by one inside the body: one that no longer unpickles is named,
and costs nothing else. Saves of format 1 (one pickle, variables and modules only) still load.
"""

from __future__ import annotations

import functools
import io
import pickle
import sys
import types
from collections.abc import Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from . import settings_state
from .module_attributes import Attribute, module_values, own_modules
from .settings_state import Baseline

FORMAT = 2
PROTOCOL = 5


class Skipped(TypedDict):
    name: str
    reason: str


class SavedState(TypedDict):
    data: bytes
    """The pickled `{"format", "values", "modules"}` record."""
    skipped: list[Skipped]
    """Variables that could not be saved, each with why."""
    modules: list[str]
    """Top-level modules the restore needs: the host loads their packages before restoring."""


@dataclass(frozen=True)
class Surroundings:
    """What a save keeps beside the namespace (the kernel knows it)."""

    baseline: Baseline
    """The settings a new kernel has: only the ones that differ are saved."""
    assigned: Iterable[Attribute] = ()
    """Module attributes the cells assigned or deleted."""
    own_code: str | None = None
    """The directory whose imported modules are the session's own (their values are saved)."""
    injected: Iterable[str] = field(default=())
    """Names the kernel put in the namespace itself (`display`): not saved."""
    preloaded: frozenset[str] = frozenset()
    """Top-level modules loaded before the session's first run: listed only when needed."""


class Restored(TypedDict):
    restored: list[str]
    failed: list[Skipped]


def _cloudpickle() -> Any:
    import cloudpickle  # type: ignore[import-untyped,unused-ignore]

    return cloudpickle


def _saved_names(namespace: Mapping[str, object], injected: Iterable[str]) -> list[str]:
    """The user's names: not dunders, not what the kernel itself put there (`display`)."""
    skip = set(injected)
    return [n for n in namespace if not (n.startswith("__") and n.endswith("__")) and n not in skip]


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:300]


def _dumps(value: object, needs: set[str] | None = None) -> bytes:
    """`value` pickled; the module of every object, class and function in it added to `needs`."""
    buffer = io.BytesIO()
    if needs is None:
        _cloudpickle().CloudPickler(buffer, protocol=PROTOCOL).dump(value)
    else:
        _recording_pickler()(buffer, needs).dump(value)
    return buffer.getvalue()


@functools.cache
def _recording_pickler() -> Any:
    class RecordingPickler(_cloudpickle().CloudPickler):  # type: ignore[misc,unused-ignore]
        """The pickler sees every object it saves except plain data: each one's module is what
        unpickling it imports (a class or function saved by reference, a reduce's callable)."""

        def __init__(self, file: io.BytesIO, needs: set[str]) -> None:
            super().__init__(file, protocol=PROTOCOL)
            self._needs = needs

        def reducer_override(self, obj: object) -> Any:
            self._needs.add(_module_of(obj))
            return super().reducer_override(obj)

    return RecordingPickler


def _module_of(obj: object) -> str:
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    by_reference = type | types.FunctionType | types.BuiltinFunctionType
    named = obj if isinstance(obj, by_reference) else type(obj)
    module = getattr(named, "__module__", None)
    return module if isinstance(module, str) else ""


def _top_level(names: Iterable[str]) -> set[str]:
    return {name.partition(".")[0] for name in names if name}


def _unsaved(value: object) -> str | None:
    """Why a value is left out before pickling is even tried, if it is."""
    if isinstance(value, io.IOBase):
        # cloudpickle would save a file opened for reading as a copy of its text: different.
        what = "a closed file object" if value.closed else "an open file"
        return f"{what} is not saved: open it again"
    return None


def _attributes(around: Surroundings) -> tuple[dict[Attribute, object], list[Attribute]]:
    """The module attributes to set again (by value) and to delete again."""
    wanted = set(around.assigned)
    if around.own_code is not None:
        for own in own_modules(around.own_code):
            wanted.update(module_values(own))
    values: dict[Attribute, object] = {}
    deleted: list[Attribute] = []
    for key in sorted(wanted):
        module = sys.modules.get(key[0])
        if module is None:
            continue
        contents = vars(module)
        if key[1] in contents:
            values[key] = contents[key[1]]
        else:
            deleted.append(key)
    return values, deleted


def _label(key: str | Attribute) -> str:
    return key if isinstance(key, str) else ".".join(key)


def _variables(
    namespace: Mapping[str, object], injected: Iterable[str]
) -> tuple[dict[str, object], dict[str, str], list[Skipped]]:
    """The user's values, the modules bound to names, and what is left out with why."""
    values: dict[str, object] = {}
    modules: dict[str, str] = {}
    skipped: list[Skipped] = []
    for name in _saved_names(namespace, injected):
        value = namespace[name]
        if isinstance(value, types.ModuleType):
            modules[name] = value.__name__
        elif reason := _unsaved(value):
            skipped.append(Skipped(name=name, reason=reason))
        else:
            values[name] = value
    return values, modules, skipped


def _settings(baseline: Baseline) -> tuple[dict[str, object], dict[str, bytes], list[Skipped]]:
    """The settings for the header (plain data), the others pickled one by one, and the ones
    that could not be read or pickled, with why."""
    early, early_failed = settings_state.capture(settings_state.EARLY, baseline)
    late, late_failed = settings_state.capture(settings_state.LATE, baseline)
    skipped = _named(early_failed | late_failed)
    pickled: dict[str, bytes] = {}
    for name, state in late.items():
        try:
            pickled[name] = _dumps(state)
        except Exception as exc:
            skipped.append(Skipped(name=name, reason=_reason(exc)))
    return early, pickled, skipped


def save_state(namespace: Mapping[str, object], around: Surroundings) -> SavedState:
    """Pickle the user's variables, module attributes and settings; name each one that cannot
    be pickled."""
    values, modules, skipped = _variables(namespace, around.injected)
    attributes, deleted = _attributes(around)
    for key, value in list(attributes.items()):
        if reason := _unsaved(value):
            skipped.append(Skipped(name=_label(key), reason=reason))
            del attributes[key]
    early, settings, unsaved_settings = _settings(around.baseline)
    skipped.extend(unsaved_settings)
    body = {
        "values": values,
        "modules": modules,
        "attributes": attributes,
        "deleted": deleted,
        "settings": settings,
    }
    needs: set[str] = set()
    try:
        data = _dumps(body, needs)
    except Exception:
        # One pass per item finds the ones that fail; the rest are then pickled together.
        for group in (values, attributes):
            skipped.extend(_drop_unpicklable(group))
        needs.clear()
        data = _dumps(body, needs)
    # The header holds strings only: it always pickles.
    header = pickle.dumps({"format": FORMAT, "settings": early}, protocol=PROTOCOL)
    needs.update(modules.values(), (key[0] for key in [*attributes, *deleted]))
    needs.update(settings_state.modules_of([*early, *settings]))
    loaded = _top_level(list(sys.modules))
    needed = (loaded - around.preloaded) | (_top_level(needs) & loaded)
    return SavedState(data=header + data, skipped=skipped, modules=sorted(needed))


def _drop_unpicklable(group: MutableMapping[Any, object]) -> list[Skipped]:
    dropped: list[Skipped] = []
    for key in list(group):
        try:
            _dumps(group[key])
        except Exception as exc:
            dropped.append(Skipped(name=_label(key), reason=_reason(exc)))
            del group[key]
    return dropped


def _named(failed: Mapping[str, str]) -> list[Skipped]:
    return [Skipped(name=name, reason=reason) for name, reason in failed.items()]


_DELETED = object()


def _set_attributes(
    attributes: Mapping[Attribute, object], deleted: list[Attribute]
) -> list[Skipped]:
    failed: list[Skipped] = []
    for key, value in [*attributes.items(), *((key, _DELETED) for key in deleted)]:
        try:
            __import__(key[0])
            module = sys.modules[key[0]]
            if value is _DELETED:
                vars(module).pop(key[1], None)
            else:
                setattr(module, key[1], value)
        except Exception as exc:
            failed.append(Skipped(name=_label(key), reason=_reason(exc)))
    return failed


def _restore_settings(pickled: Mapping[str, bytes]) -> list[Skipped]:
    states: dict[str, object] = {}
    failed: list[Skipped] = []
    for name, data in pickled.items():
        try:
            states[name] = pickle.loads(data)  # noqa: S301 (this sandbox's own save, as above)
        except Exception as exc:
            failed.append(Skipped(name=name, reason=_reason(exc)))
    return failed + _named(settings_state.restore(settings_state.LATE, states))


def load_state(
    namespace: dict[str, object], data: bytes, assigned: set[Attribute] | None = None
) -> Restored:
    """Put saved variables, module attributes and settings back into this interpreter; what
    fails is named with why. The attributes set again are added to `assigned`, so that the next
    save keeps them too."""
    failed: list[Skipped] = []
    restored: list[str] = []
    stream = io.BytesIO(data)
    try:
        # Only this sandbox's own pickles come back, into this sandbox: nothing it can reach
        # by unpickling is beyond what its cells can already do. The host never unpickles.
        record = pickle.load(stream)  # noqa: S301
        if isinstance(record, dict) and record.get("format") == FORMAT:  # a header: the body next
            failed.extend(_named(settings_state.restore(settings_state.EARLY, record["settings"])))
            record = pickle.load(stream)  # noqa: S301
    except Exception as exc:
        return Restored(restored=[], failed=[*failed, Skipped(name="*", reason=_reason(exc))])
    if not isinstance(record, dict) or not {"values", "modules"} <= record.keys():
        return Restored(restored=[], failed=[Skipped(name="*", reason="unknown state format")])
    for name, module in record["modules"].items():
        try:
            __import__(module)
            namespace[name] = sys.modules[module]
            restored.append(name)
        except Exception as exc:
            failed.append(Skipped(name=name, reason=_reason(exc)))
    for name, value in record["values"].items():
        namespace[name] = value
        restored.append(name)
    attributes, deleted = record.get("attributes", {}), record.get("deleted", [])
    failed.extend(_set_attributes(attributes, deleted))
    if assigned is not None:
        assigned.update(attributes, deleted)
    failed.extend(_restore_settings(record.get("settings", {})))
    return Restored(restored=sorted(restored), failed=failed)
