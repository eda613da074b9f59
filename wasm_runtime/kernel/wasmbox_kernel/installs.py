"""`allowInstall`: micropip installs what the runtime ships, and nothing from anywhere else.

micropip looks a name up on its package indexes (PyPI by default) before Pyodide's lock, and
fetches any wheel URL it is given. Here its index list is empty, so a name resolves only against
the runtime's lock (files served from the runtime's own origin), and a requirement that names a
URL, a path or an index is refused before anything is fetched. The worker's Content Security
Policy blocks the network anyway; this makes the refusal a plain, immediate Python error.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable
from types import ModuleType
from typing import Any

# A plain requirement: a name, extras, version specifiers and markers; never a URL or a path.
_LOCATION = re.compile(r"[/\\@]|:")
_CONFINED = "_wasmbox_confined"


class InstallRefused(ValueError):
    """An install that would reach beyond the runtime's own files."""

    __module__ = "builtins"


def refusal(requirements: object, index_urls: object, constraints: object) -> str | None:
    """Why this micropip.install call is refused, or None when it asks only for names."""
    if index_urls is not None:
        return "index_urls: packages come only from this runtime's own files"
    names = [requirements] if isinstance(requirements, str) else requirements
    for item in [*_strings(names), *_strings(constraints or [])]:
        if _LOCATION.search(item) or item.strip().endswith(".whl"):
            return (
                f"{item!r}: only package names are installed, from this runtime's own files; "
                "URLs, paths and wheel files are refused"
            )
    return None


def confine_micropip(micropip: ModuleType) -> None:
    """Empty micropip's index list and guard `install` and `set_index_urls` (module level)."""
    if getattr(micropip, _CONFINED, False):
        return  # a worker's second kernel: already done
    install: Callable[..., Awaitable[Any]] = micropip.install
    micropip.set_index_urls([])
    # A PackageManager made later (micropip.package_manager) copies these: none for it either.
    defaults = getattr(getattr(micropip, "package_index", None), "DEFAULT_INDEX_URLS", None)
    if isinstance(defaults, list):
        defaults.clear()

    async def confined_install(
        requirements: str | list[str],
        keep_going: bool = False,
        deps: bool = True,
        credentials: str | None = None,
        pre: bool = False,
        index_urls: list[str] | str | None = None,
        *,
        constraints: list[str] | None = None,
        verbose: bool | int | None = None,
    ) -> Any:
        if reason := refusal(requirements, index_urls, constraints):
            raise InstallRefused(f"micropip.install refused: {reason}")
        return await install(
            requirements,
            keep_going,
            deps,
            credentials,
            pre,
            constraints=constraints,
            verbose=verbose,
        )

    def confined_set_index_urls(urls: object) -> None:
        raise InstallRefused(
            "micropip.set_index_urls refused: packages come only from this runtime's own files"
        )

    confined_install.__doc__ = install.__doc__
    setattr(micropip, "install", confined_install)  # noqa: B010 (a module mypy cannot see)
    setattr(micropip, "set_index_urls", confined_set_index_urls)  # noqa: B010
    setattr(micropip, _CONFINED, True)


def confine_installed_micropip() -> None:
    """Confine micropip when the worker loaded it (it does so for allowInstall)."""
    try:
        import micropip  # type: ignore[import-not-found]  # Pyodide's, absent under CPython
    except ModuleNotFoundError:
        return  # without micropip there is nothing that installs
    confine_micropip(micropip)


def _strings(items: object) -> Iterable[str]:
    if not isinstance(items, list | tuple):
        raise InstallRefused(f"micropip.install expects names, got {items!r}")
    for item in items:
        if not isinstance(item, str):
            raise InstallRefused(f"micropip.install expects names, got {item!r}")
        yield item
