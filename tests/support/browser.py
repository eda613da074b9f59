"""Tests and benchmarks launch the browser as the Python client does (`wasmbox.browser`)."""

from __future__ import annotations

import sys

from wasmbox.browser import (
    BROWSER_UI_FEATURES,
    CHROMIUM_ARGS,
    PLAYWRIGHT_DISABLED_FEATURES,
    chromium_executable,
    launch_args,
    playwright_chromium,
)

__all__ = [
    "BROWSER_UI_FEATURES",
    "CHROMIUM_ARGS",
    "PLAYWRIGHT_DISABLED_FEATURES",
    "chromium_executable",
    "launch_args",
    "playwright_chromium",
]

if __name__ == "__main__":  # `python -m tests.support.browser`: exit 0 when a browser is usable
    from wasmbox.browser import usable_browser

    found = usable_browser()
    print(found or "no Chromium found")
    sys.exit(0 if found else 1)
