"""Runtime files reach the sandbox through the host page, whose HTTP cache survives visits: the
opaque frame's own cache is a new partition each time, so it would download the runtime again."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Request, Route

from tests.browser.sandbox.conftest import HAS_STORED, LARGE_FILES, SDK_PAGE
from tests.support.engines.base import poll
from tests.support.runtime_store import STORE, STORE_KEYS

pytestmark = pytest.mark.browser


def visit(browser_context, server: str) -> list[tuple[str, str, int]]:
    """Open the page, run one cell; the large runtime files requested: (name, by frame, bytes)."""
    page = browser_context.new_page()
    seen: list[Request] = []
    page.on("requestfinished", lambda request: seen.append(request))
    page.goto(f"{server}{SDK_PAGE}")
    page.wait_for_function("() => window.sdkReady === true")
    result = page.evaluate(
        "async () => { const sb = await wasmbox.Sandbox.create();"
        " const r = await sb.execute('6 * 7'); await sb.close(); return r.value['text/plain']; }"
    )
    assert result == "42"
    downloads = large_downloads(seen)  # sizes are only readable while the page is open
    page.close()
    return downloads


def large_downloads(requests: list[Request]) -> list[tuple[str, str, int]]:
    return [
        (r.url.rsplit("/", 1)[-1], r.frame.url.rsplit("/", 1)[-1], r.sizes()["responseBodySize"])
        for r in requests
        if r.url.rsplit("/", 1)[-1] in LARGE_FILES
    ]


def test_large_files_are_fetched_by_the_page_not_the_frame(
    browser: Browser, isolated_server: str
) -> None:
    context = browser.new_context()
    first = visit(context, isolated_server)
    assert {name for name, _, _ in first} == set(LARGE_FILES)
    assert all(frame == "sdk-sandbox.html" for _, frame, _ in first)
    context.close()


def test_repeat_visit_downloads_no_large_file_again(browser: Browser, isolated_server: str) -> None:
    context = browser.new_context()
    visit(context, isolated_server)
    again = visit(context, isolated_server)
    assert sum(size for _, _, size in again) == 0, again
    context.close()


# Whether the page's runtime store refused `name` (its bytes did not hash to the manifest's).
NOT_STORED = """(name) => performance.getEntriesByType("mark")
  .some((m) => m.name.startsWith(`wasmbox:not stored ${name}:`))"""
PUT_ENTRY = (
    f"async (key) => (await caches.open('{STORE}')).put('/runtime/' + key, new Response('x'))"
)
RUN_6_TIMES_7 = """async () =>
  (await (await wasmbox.Sandbox.create()).execute('6 * 7')).value['text/plain']"""

# `create`'s error message, or null when the sandbox started.
START_ERROR = """async () => {
  try { await wasmbox.Sandbox.create(); return null; } catch (e) { return String(e.message ?? e); }
}"""


def stored_names(page: Page) -> set[str]:
    return {key.split("?")[0] for key in page.evaluate(STORE_KEYS)}


def open_sdk(context: BrowserContext, server: str) -> Page:
    page = context.new_page()
    page.goto(f"{server}{SDK_PAGE}")
    page.wait_for_function("() => window.sdkReady === true")
    return page


def test_a_repeat_visit_reads_the_runtime_from_the_page_store(
    browser: Browser, isolated_server: str
) -> None:
    """The HTTP cache still decodes brotli on every visit (hundreds of ms for the snapshot); the
    decoded files are kept in the page's CacheStorage instead, checked against the manifest. An
    entry the manifest no longer names is deleted."""
    context = browser.new_context()
    page = open_sdk(context, isolated_server)
    assert page.evaluate(RUN_6_TIMES_7) == "42"
    # Polled, not page.wait_for_function: Playwright takes a returned promise as truthy at once.
    poll(page, HAS_STORED, list(LARGE_FILES), None)  # stored once the page is idle
    stale = "snapshot.bin?sha256=" + "0" * 64
    page.evaluate(PUT_ENTRY, stale)
    page.close()

    assert visit(context, isolated_server) == []  # no request for a large file, not even a 304
    page = open_sdk(context, isolated_server)
    poll(page, f"async (stale) => !(await ({STORE_KEYS})()).includes(stale)", stale, None)
    assert set(LARGE_FILES) <= stored_names(page)
    context.close()


def test_a_file_that_does_not_match_the_manifest_is_not_stored(
    browser: Browser, isolated_server: str
) -> None:
    context = browser.new_context()

    def altered(route: Route) -> None:  # valid JSON, other bytes: a hash the manifest does not have
        route.fulfill(status=200, content_type="application/json", body=route.fetch().body() + b" ")

    context.route("**/runtime/pyodide-lock.json", altered)
    page = open_sdk(context, isolated_server)
    assert page.evaluate(RUN_6_TIMES_7) == "42"
    poll(page, HAS_STORED, list(LARGE_FILES), None)
    # The store hashed the altered file and said it refused it (a `wasmbox:not stored` mark).
    poll(page, NOT_STORED, "pyodide-lock.json", None)
    assert "pyodide-lock.json" not in stored_names(page)
    context.close()


def test_a_page_that_cannot_read_the_runtime_gets_a_clear_start_error(
    browser: Browser, isolated_server: str
) -> None:
    """The frame has no network at all (connect-src 'none'), so it never falls back to fetching
    runtime files itself: when the page's own fetches fail, `create` says so, and no runtime
    request ever comes from the frame."""
    context = browser.new_context()
    from_frame: list[str] = []

    def page_fetch_fails(route: Route, request: Request) -> None:
        if not request.frame.url.endswith("sdk-sandbox.html"):
            from_frame.append(request.url)
        route.abort()

    context.route("**/runtime/**", page_fetch_fails)
    page = open_sdk(context, isolated_server)
    error = page.evaluate(START_ERROR)
    assert error is not None and "could not be read" in error, error
    assert from_frame == []
    context.close()


def test_a_stale_package_is_fetched_again_and_used(browser: Browser, isolated_server: str) -> None:
    """A wheel's name carries its package's version, not the build's edits to it, so an HTTP
    cache may hold an earlier build's file under the same name: a wheel that does not match the
    manifest is fetched once more, past the HTTP cache (`cache: "reload"`, which this route
    cannot see), and used if that one matches."""
    context = browser.new_context()
    served: list[int] = []

    def stale_first(route: Route) -> None:
        body = route.fetch().body()
        route.fulfill(status=200, body=body if served else body + b"stale")
        served.append(len(body))

    context.route("**/runtime/joblib-*.whl", stale_first)
    page = open_sdk(context, isolated_server)
    result = page.evaluate(
        "async () => (await (await wasmbox.Sandbox.create()).execute('import joblib; 1'))"
    )
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    assert len(served) == 2
    context.close()


def test_a_package_that_does_not_match_the_manifest_is_refused(
    browser: Browser, isolated_server: str
) -> None:
    """Pyodide's integrity check cannot run in the frame (it has no network): the page checks a
    wheel against the manifest before the sandbox gets it, and the run says which file."""
    context = browser.new_context()

    def altered(route: Route) -> None:
        route.fulfill(status=200, body=route.fetch().body() + b"tampered")

    context.route("**/runtime/joblib-*.whl", altered)
    page = open_sdk(context, isolated_server)
    result = page.evaluate(
        "async () => (await (await wasmbox.Sandbox.create()).execute('import joblib'))"
    )
    assert result["outcome"] == "OUTCOME_FAILED"
    message = result["error"]["message"]
    assert message.startswith("No module named 'joblib': the package could not be loaded"), message
    assert "joblib-1.4.0-py3-none-any.whl is not the runtime's file" in message, message
    assert "joblib" not in stored_names(page)
    context.close()


def test_a_store_that_never_answers_is_a_miss(browser: Browser, isolated_server: str) -> None:
    """A page's CacheStorage can stall (seen once in CI: a repeat visit waited out the whole boot
    timeout), and so may its file system. A lookup that does not answer is abandoned and the file
    comes from the network."""
    context = browser.new_context()
    context.add_init_script(
        "CacheStorage.prototype.open = () => new Promise(() => {});"
        "StorageManager.prototype.getDirectory = () => new Promise(() => {});"
    )
    page = context.new_page()
    fetched: list[str] = []
    page.on("requestfinished", lambda r: fetched.append(r.url.rsplit("/", 1)[-1]))
    page.goto(f"{isolated_server}{SDK_PAGE}")
    page.wait_for_function("() => window.sdkReady === true")
    assert page.evaluate(RUN_6_TIMES_7) == "42"
    assert set(LARGE_FILES) <= set(fetched)
    context.close()


def test_a_page_that_refuses_a_folder_keeps_the_runtime_in_its_cache_storage(
    browser: Browser, isolated_server: str
) -> None:
    """Where the page cannot have its origin-private file system (a browser without one, or one
    that refuses it, as in private browsing), the store is the page's CacheStorage, and a repeat
    visit reads the runtime from there."""
    context = browser.new_context()
    context.add_init_script(
        "StorageManager.prototype.getDirectory = () =>"
        " Promise.reject(new DOMException('refused', 'SecurityError'));"
    )
    page = open_sdk(context, isolated_server)
    assert page.evaluate(RUN_6_TIMES_7) == "42"
    poll(page, HAS_STORED, list(LARGE_FILES), None)  # STORE_KEYS reads CacheStorage alone here
    page.close()
    assert visit(context, isolated_server) == []
    context.close()


def test_a_malformed_booted_message_ends_the_start_at_once(
    browser: Browser, isolated_server: str
) -> None:
    """The worker's `booted` is parsed like any message; refused, the start fails with the reason
    rather than waiting out the boot timeout."""
    context = browser.new_context()

    def malformed(route: Route) -> None:
        body = route.fetch().text()
        assert "bootMs: performance.now() - started" in body
        route.fulfill(
            status=200,
            content_type="text/javascript",
            body=body.replace("bootMs: performance.now() - started", 'bootMs: "soon"'),
        )

    context.route("**/sandbox/worker.js", malformed)
    page = open_sdk(context, isolated_server)
    error = page.evaluate(START_ERROR)
    assert error is not None and 'the sandbox\'s "booted" message was refused' in error, error
    assert "bootMs" in error and "timed out" not in error, error
    context.close()
