"""Saving and restoring the cells' variables for a session that outlives its worker.

What can be pickled (cloudpickle: also lambdas and classes or functions defined in cells) is
saved in one pickle, so two names for one object stay one object. Imported modules are saved
as their names and imported again. Everything else is named with the reason, never dropped
silently: the host stores that list and reports it when the session is resumed.
"""

from __future__ import annotations

import io
import pickle
import sys
import types
from collections.abc import Iterable, Mapping
from typing import Any, TypedDict

FORMAT = 1
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
    """Top-level modules loaded when saved: the host loads their packages before restoring."""


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


def _dumps(value: object) -> bytes:
    buffer = io.BytesIO()
    _cloudpickle().CloudPickler(buffer, protocol=PROTOCOL).dump(value)
    return buffer.getvalue()


def save_state(namespace: Mapping[str, object], injected: Iterable[str] = ()) -> SavedState:
    """Pickle the namespace's user variables; name each one that cannot be pickled."""
    values: dict[str, object] = {}
    modules: dict[str, str] = {}
    skipped: list[Skipped] = []
    for name in _saved_names(namespace, injected):
        value = namespace[name]
        if isinstance(value, types.ModuleType):
            modules[name] = value.__name__
        elif isinstance(value, io.IOBase):
            # cloudpickle would save a file opened for reading as a copy of its text: different.
            what = "a closed file object" if value.closed else "an open file"
            skipped.append(Skipped(name=name, reason=f"{what} is not saved: open it again"))
        else:
            values[name] = value
    try:
        data = _dumps({"format": FORMAT, "values": values, "modules": modules})
    except Exception:
        # One pass per variable finds the ones that fail; the rest are then pickled together.
        for name in list(values):
            try:
                _dumps(values[name])
            except Exception as exc:
                skipped.append(Skipped(name=name, reason=_reason(exc)))
                del values[name]
        data = _dumps({"format": FORMAT, "values": values, "modules": modules})
    loaded = sorted({name.partition(".")[0] for name in list(sys.modules)})
    return SavedState(data=data, skipped=skipped, modules=loaded)


def load_state(namespace: dict[str, object], data: bytes) -> Restored:
    """Put saved variables back into `namespace`; what fails is named with why."""
    failed: list[Skipped] = []
    restored: list[str] = []
    try:
        # Only this sandbox's own pickles come back, into this sandbox: nothing it can reach
        # by unpickling is beyond what its cells can already do. The host never unpickles.
        record = pickle.loads(data)  # noqa: S301
    except Exception as exc:
        return Restored(restored=[], failed=[Skipped(name="*", reason=_reason(exc))])
    if not isinstance(record, dict) or record.get("format") != FORMAT:
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
    return Restored(restored=sorted(restored), failed=failed)
