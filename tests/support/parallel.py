"""How `make test` splits the suite between its two pytest-xdist workers (`-n 2 --dist loadscope`).

Most browser tests wait (a page loads, a sandbox boots, a deadline passes), so one pytest process
leaves a core idle. A worker runs whole units, so what a unit shares is set up once: a test module
(its module-scoped pages and sandboxes), and all of tests/realmodel, whose llama.cpp server is
session-scoped: one per worker would load the model twice and take both cores.
"""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling

# Folders whose tests one worker runs together, for a session-scoped fixture only they use.
SHARED_FOLDERS = ("tests/realmodel/",)


def unit_of(nodeid: str) -> str:
    """The unit a test is scheduled in: its module, or the shared folder holding it."""
    module = nodeid.split("::", 1)[0]
    return next((folder for folder in SHARED_FOLDERS if module.startswith(folder)), module)


class ModuleScheduling(LoadScopeScheduling):  # type: ignore[misc]  # xdist has no types
    """loadscope by `unit_of` (loadscope's own unit is a class where a module has classes)."""

    def _split_scope(self, nodeid: str) -> str:
        return unit_of(nodeid)
