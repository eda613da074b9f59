"""WebKit (Safari's engine) through Selenium and WebKitWebDriver, driving WebKitGTK's MiniBrowser.

MiniBrowser needs a display even with --headless (without one it hangs at launch), so when there
is no DISPLAY a private Xvfb server is started for the browser's lifetime. Each page is its own
WebDriver session: a fresh MiniBrowser with ephemeral storage.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import shutil
import signal
import subprocess
import warnings
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

from tests.support.engines.base import EngineError, json_function, poll, unwrap

WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"
MINIBROWSER_GLOB = "/usr/lib/*/webkit2gtk-4.*/MiniBrowser"
SCRIPT_TIMEOUT_S = 300  # a test's own pytest timeout ends it sooner
LAUNCH_TIMEOUT_S = 60  # a launch takes a few seconds
LAUNCH_ATTEMPTS = 2


def minibrowser() -> str | None:
    if explicit := os.environ.get("WASMBOX_WEBKIT"):
        return explicit
    found = sorted(glob.glob(MINIBROWSER_GLOB))
    return found[-1] if found else None


class Xvfb:
    """A private X server on a display number it picks itself."""

    def __init__(self) -> None:
        if not shutil.which("Xvfb"):
            raise EngineError("WebKit needs a display: install xvfb (make browser does it as root)")
        read, write = os.pipe()
        self.process = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
            pass_fds=(write,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(write)
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        if not number:
            raise EngineError("Xvfb did not start")
        self.display = f":{number}"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def new_session(browser: WebKitBrowser) -> Any:
    """A WebDriver session on a new MiniBrowser. Its launch can hang with no answer at all (seen
    twice in full `make test` runs, never when the same tests ran alone); Selenium would wait
    forever, so a launch that has not answered in LAUNCH_TIMEOUT_S is stopped and tried again."""
    from selenium import webdriver
    from selenium.webdriver.webkitgtk.options import Options
    from selenium.webdriver.webkitgtk.service import Service

    options = Options()
    options.binary_location = browser.executable
    options.add_argument("--automation")
    for attempt in range(1, LAUNCH_ATTEMPTS + 1):
        # Its own process group: a hung launch is ended with the MiniBrowser it started.
        service = Service(
            executable_path=WEBKIT_DRIVER,
            env={**os.environ, **browser.env},
            popen_kw={"start_new_session": True},
        )
        pool = ThreadPoolExecutor(max_workers=1)
        launch = pool.submit(webdriver.WebKitGTK, options=options, service=service)
        try:
            return launch.result(timeout=LAUNCH_TIMEOUT_S)
        except FutureTimeout:
            # A warning, not a print: pytest shows it in its summary even when the test passes.
            warnings.warn(
                f"WebKit: no session after {LAUNCH_TIMEOUT_S} s (attempt {attempt}); relaunching",
                RuntimeWarning,
                stacklevel=2,
            )
            with contextlib.suppress(ProcessLookupError, AttributeError):
                os.killpg(service.process.pid, signal.SIGKILL)  # the pending request then fails
        finally:
            pool.shutdown(wait=True)
    raise EngineError(f"WebKit: no session after {LAUNCH_ATTEMPTS} launches")


class WebKitPage:
    def __init__(self, browser: WebKitBrowser) -> None:
        self.driver = new_session(browser)
        self.driver.set_script_timeout(SCRIPT_TIMEOUT_S)
        self.driver.set_page_load_timeout(SCRIPT_TIMEOUT_S)

    @property
    def version(self) -> str:
        return str(self.driver.capabilities.get("browserVersion", "unknown"))

    def goto(self, url: str) -> None:
        self.driver.get(url)

    def evaluate(self, expression: str, arg: Any = None) -> Any:
        script = (
            f"const done = arguments[arguments.length - 1];\n"
            f"({json_function(expression)})(arguments[0]).then(done);"
        )
        reply = self.driver.execute_async_script(script, json.dumps(arg))
        return unwrap(reply)

    def wait_for_function(
        self, expression: str, arg: Any = None, timeout: float | None = None
    ) -> Any:
        return poll(self, expression, arg, timeout)

    def set_offline(self, offline: bool) -> None:
        raise EngineError("WebKitWebDriver has no switch to take a page offline")

    def close(self) -> None:
        self.driver.quit()


class WebKitBrowser:
    name = "webkit"

    def __init__(self, executable: str, xvfb: Xvfb | None) -> None:
        self.executable = executable
        self.xvfb = xvfb
        self.env = {"DISPLAY": xvfb.display} if xvfb else {}
        probe = WebKitPage(self)  # fails here, not in the first test, when WebKit cannot start
        self.version = probe.version
        probe.close()

    @classmethod
    def launch(cls) -> WebKitBrowser:
        executable = minibrowser()
        if executable is None or not Path(WEBKIT_DRIVER).is_file():
            raise EngineError(
                "no WebKit found: install webkit2gtk-driver (make browser does it as root)"
            )
        xvfb = None if os.environ.get("DISPLAY") else Xvfb()
        try:
            return cls(executable, xvfb)
        except Exception:
            if xvfb:
                xvfb.stop()
            raise

    def new_page(self) -> WebKitPage:
        return WebKitPage(self)

    def close(self) -> None:
        if self.xvfb:
            self.xvfb.stop()
