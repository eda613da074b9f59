"""Telling the host, during a run, that the cell imported a module it readies for.

A page that knows a run imported plotly or altair starts that chart library's frame while Python
still runs (docs/charts.md). The audit hook's "import" events (`context.Dispatcher`) come here;
the first import of a module in `ANNOUNCED_IMPORTS` (its top-level name, from the protocol's one
list) is passed to the worker's callback, once per module per kernel. Only a name from that list
ever crosses: the worker checks again, and so does the host.
"""

from __future__ import annotations

from collections.abc import Callable

from .protocol_data import ANNOUNCED_IMPORTS

ImportCallback = Callable[[str], None]


class ImportAnnouncer:
    """One per kernel: the listed modules its runs have announced."""

    def __init__(self) -> None:
        self._announced: set[str] = set()

    def for_run(self, on_import: ImportCallback | None) -> Callable[[object], None] | None:
        """What the run's audit hook calls with each imported module's name; None without a
        callback (nothing to tell) or once every listed module was told."""
        if on_import is None or self._announced.issuperset(ANNOUNCED_IMPORTS):
            return None
        announced = self._announced

        def imported(name: object) -> None:
            if not isinstance(name, str):
                return
            top = name.partition(".")[0]
            if top in announced or top not in ANNOUNCED_IMPORTS:
                return
            announced.add(top)
            try:  # noqa: SIM105
                on_import(top)
            except Exception:  # noqa: S110 (an audit hook must never break the import)
                pass

        return imported
