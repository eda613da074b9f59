"""One small interface over the browser engines the tests and benchmarks drive.

Chromium goes through Playwright, Firefox through WebDriver BiDi (its native remote protocol),
WebKit through Selenium and WebKitWebDriver. A test asks for a page and only uses `goto`,
`evaluate`, `wait_for_function` and `close`, so one test body runs in every engine.
`WASMBOX_BROWSERS=chromium,firefox,webkit` picks the engines of a run (default: chromium).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from tests.support.engines.base import EngineBrowser, EngineError, EnginePage

ENGINES = ("chromium", "firefox", "webkit")
DEFAULT_ENGINES = "chromium"

__all__ = [
    "ENGINES",
    "EngineBrowser",
    "EngineError",
    "EnginePage",
    "lacks",
    "launch",
    "selected_engines",
]


def selected_engines() -> list[str]:
    """The engines named by WASMBOX_BROWSERS, in the order given; unknown names are an error."""
    names = [n.strip() for n in os.environ.get("WASMBOX_BROWSERS", DEFAULT_ENGINES).split(",")]
    names = [n for n in names if n]
    unknown = sorted(set(names) - set(ENGINES))
    if unknown or not names:
        raise ValueError(f"WASMBOX_BROWSERS={names!r}: choose from {', '.join(ENGINES)}")
    return list(dict.fromkeys(names))


@contextmanager
def launch(name: str) -> Iterator[EngineBrowser]:
    """A running browser of engine `name`, closed on exit (for scripts; pytest has fixtures)."""
    if name == "chromium":
        from tests.support.engines.chromium import launched_chromium

        with launched_chromium() as chromium:
            yield chromium
        return
    browser: EngineBrowser
    if name == "firefox":
        from tests.support.engines.firefox import FirefoxBrowser

        browser = FirefoxBrowser.launch()
    elif name == "webkit":
        from tests.support.engines.webkit import WebKitBrowser

        browser = WebKitBrowser.launch()
    else:
        raise ValueError(f"unknown browser engine {name!r}: choose from {', '.join(ENGINES)}")
    try:
        yield browser
    finally:
        browser.close()


# What an engine cannot do here, by the server variant it cannot run. Tests of that variant are
# skipped for that engine, with this reason; the SDK's fallback there is tested by
# tests/browser/sandbox/test_modes.py. docs/browsers.md explains each for users.
ENGINE_GAPS: dict[tuple[str, str], str] = {
    ("webkit", "isolated"): (
        "WebKitGTK 2.50 has no SharedArrayBuffer even when cross-origin isolated, and its "
        "sandbox worker fails to load under COEP: the SDK refuses to start there (test_modes); "
        "served without COOP/COEP it runs terminate-only"
    ),
}

# Features an engine lacks where a guarantee still holds but what the SDK reports, or what a run
# costs, differs; a test checks the report where the feature exists and the fallback where it
# does not (docs/browsers.md). Each feature a run took the fallback for is listed at its end.
ENGINE_LACKS: dict[str, dict[str, str]] = {
    "webkit": {
        "csp-events-in-workers": (
            "WebKitGTK fires no securitypolicyviolation event in a worker: requests the CSP blocks "
            "are still blocked, but audit.networkAttempts does not list them"
        ),
        "terminate-stops-c-loops": (
            "WebKitGTK's Worker.terminate() cannot stop a thread inside WebAssembly: a loop inside"
            " C (sum(range(10**11))) ends in its result and a new sandbox as elsewhere, but the old"
            " thread keeps a core busy until the loop ends or the page closes (Python loops are"
            " stopped: in terminate-only mode they call out to JS, where WebKit can stop them)"
        ),
        "package-snapshot": (
            "WebKitGTK's wasm table holds 1,155 more slots after boot than Node's, where the "
            "package snapshot is made, so its side modules cannot go back at their recorded table "
            "bases: a resume boots from the base snapshot and installs numpy and pandas as before"
        ),
        "blocked-fetch-settles": (
            "WebKitGTK never settles a fetch its worker CSP refused: nothing is sent, and the run "
            "ends at its deadline with the sandbox restarted (terminate-only, stateLost)"
        ),
    },
    "firefox": {
        f"csp-event-{api}": (
            f"Firefox fires no securitypolicyviolation event in a worker for a refused {api} "
            "(it does for fetch, XHR, WebSocket and eval): the request is still blocked, but "
            "audit.networkAttempts does not list it"
        )
        for api in ("EventSource", "importScripts", "FontFace")
    },
}

# (engine, feature) pairs some test took the fallback for in this run, for the run's summary.
FALLBACKS_TAKEN: set[tuple[str, str]] = set()


def lacks(engine: str, feature: str) -> bool:
    """Whether `engine` lacks `feature` (ENGINE_LACKS); a yes is listed at the end of the run."""
    missing = feature in ENGINE_LACKS.get(engine, {})
    if missing:
        FALLBACKS_TAKEN.add((engine, feature))
    return missing
