"""Web-app figures with many files in the sandbox (`python -m tests.bench.app_files`): a console
run that writes 10,001 empty files, from its submission to the run shown done and to the Files panel
naming the refused listing; `print(1)` before and after (the same page); removing them all, to
done and to the panel listing again. A run's end waits for the session's save (the app saves
after every activity), and the page lists the files after each.

Prints figures only (median, min–max); nothing asserts a time.
"""

from __future__ import annotations

import os

from playwright.sync_api import Page, sync_playwright

from backend.settings import Settings
from tests.bench.stats import summary
from tests.support.browser import launch_args
from tests.support.servers import running, test_app

RUNS = 3
MANY = "import os\nos.mkdir('many')\nfor i in range(10_001):\n    open(f'many/{i}', 'w').close()"
REMOVE = "import shutil\nshutil.rmtree('many')"

# Submit `code` in the console; resolve with [ms to the run shown done (the log's aria-busy back to
# false), ms to the Files panel showing (alert) or not showing (no alert) a refused listing].
TIMED_RUN = """async ([code, alert]) => {
  const log = document.getElementById("transcript");
  const panel = document.getElementById("file-list");
  const panelDone = () => (panel.querySelector("[role=alert]") !== null) === alert;
  const start = performance.now();
  const ended = new Promise((resolve) => {
    const observer = new MutationObserver((records) => {
      if (records.some((r) => r.oldValue === "true") && log.getAttribute("aria-busy") === "false") {
        observer.disconnect();
        resolve(performance.now() - start);
      }
    });
    const watch = { attributes: true, attributeFilter: ["aria-busy"], attributeOldValue: true };
    observer.observe(log, watch);
  });
  document.getElementById("console-tab").click();
  document.getElementById("code").value = code;
  document.querySelector("#console-form button[type=submit]").click();
  const done = await ended;
  while (!panelDone()) await new Promise((r) => setTimeout(r, 20));
  return [done, performance.now() - start];
}"""


def timed(page: Page, code: str, alert: bool = False) -> tuple[float, float]:
    done, panel = page.evaluate(TIMED_RUN, [code, alert])
    return float(done), float(panel)


def main() -> None:
    print(f"load: {os.getloadavg()[0]:.1f} (1-minute average at the start)")
    with running(test_app(Settings())) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(**launch_args())
        page = browser.new_page()
        page.goto(f"{base}/?timeoutMs=300000")
        page.get_by_text("Sandbox: ready").wait_for(timeout=120_000)
        before = [timed(page, "print(1)")[0] for _ in range(RUNS)]
        many_done, many_alert = timed(page, MANY, alert=True)
        after = [timed(page, "print(1)", alert=True)[0] for _ in range(RUNS)]
        removed_done, removed_listed = timed(page, REMOVE)
        browser.close()
    print(f"print(1), submitted → done, few files:      {summary(before)}")
    print(f"write 10,001 files → run done:               {many_done:8.0f} ms")
    print(f"write 10,001 files → refused listing shown:  {many_alert:8.0f} ms")
    print(f"print(1), submitted → done, 10,001 files:   {summary(after)}")
    print(f"remove them → run done:                      {removed_done:8.0f} ms")
    print(f"remove them → files listed again:            {removed_listed:8.0f} ms")
    print(f"load: {os.getloadavg()[0]:.1f} (1-minute average at the end)")


if __name__ == "__main__":
    main()
