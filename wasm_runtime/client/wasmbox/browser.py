"""Which browser the Python client, the tests and the benchmarks drive, and how it is launched.

`WASMBOX_BROWSER` names an executable; otherwise Playwright's own Chromium when it is installed,
otherwise Debian's `/usr/bin/chromium`. Firefox and WebKit are Playwright's own builds.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Literal

BrowserName = Literal["chromium", "firefox", "webkit"]
BROWSERS: tuple[BrowserName, ...] = ("chromium", "firefox", "webkit")

# Chromium builds its omnibox popup, a WebUI page, for every new tab, and that CPU competes with
# the page being measured; Puppeteer disables these by default for the same reason.
BROWSER_UI_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")
# Chromium keeps only the last `--disable-features` and Playwright passes its own list first, so
# ours repeats Playwright's (tests/browser/test_browser_launch.py checks it still covers it).
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)
# Without the background-networking flags Chromium keeps calling Google's services.
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-features=" + ",".join((*PLAYWRIGHT_DISABLED_FEATURES, *BROWSER_UI_FEATURES)),
]
SYSTEM_CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser")


def playwright_chromium() -> str | None:
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as pw:
            path = pw.chromium.executable_path
    except Exception:  # no driver, or no browser downloaded
        return None
    return path if path and Path(path).is_file() else None


def chromium_executable(playwright_own: str | None = None) -> str | None:
    """The executable to launch, or None to let Playwright use its own.

    `playwright_own` is Playwright's Chromium path when the caller already knows it (the async
    client cannot ask the sync API from inside its event loop).
    """
    if explicit := os.environ.get("WASMBOX_BROWSER"):
        return explicit
    if playwright_own is None:
        playwright_own = playwright_chromium()
    if playwright_own and Path(playwright_own).is_file():
        return None
    for candidate in (*SYSTEM_CHROMIUM, shutil.which("chromium")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def launch_args(
    browser: BrowserName = "chromium", playwright_own: str | None = None
) -> dict[str, Any]:
    """Keyword arguments for Playwright's `launch` of `browser`."""
    if browser not in BROWSERS:
        raise ValueError(f"unknown browser {browser!r}: one of {', '.join(BROWSERS)}")
    if browser != "chromium":
        return {"headless": True}
    args: dict[str, Any] = {"args": CHROMIUM_ARGS}
    if executable := chromium_executable(playwright_own):
        args["executable_path"] = executable
    return args


def usable_browser() -> str | None:
    """The Chromium executable that would be launched, when there is one."""
    found = os.environ.get("WASMBOX_BROWSER") or playwright_chromium() or chromium_executable()
    return found if found and Path(found).is_file() else None


if __name__ == "__main__":  # `python -m wasmbox.browser`: exit 0 when a browser is usable
    found = usable_browser()
    print(found or "no Chromium found")
    raise SystemExit(0 if found else 1)
