"""Waiting until a page of the export will work offline: what its reload needs is in its caches."""

from __future__ import annotations

from playwright.sync_api import Page

from tests.support.engines.base import poll

# The service worker controls the page once its precache holds this build (the app, the SDK and
# the boot runtime). A package wheel is kept apart from that: in the page's runtime store (its
# origin-private file system, else CacheStorage), written in the background once the page is
# idle, or in the worker's wheel cache when the worker already controlled the page as it fetched
# the wheel. Neither is implied by the worker's control.
READY_OFFLINE = """async (packages) => {
  if (navigator.serviceWorker.controller === null) return false;
  const kept = [];
  for (const cache of await caches.keys())
    for (const request of await (await caches.open(cache)).keys())
      kept.push(decodeURIComponent(new URL(request.url).pathname.split("/").pop()));
  // The runtime store's folder, where the browser can write one (sdk/runtime-folder.ts).
  let root = null;
  try {
    root = await (await navigator.storage.getDirectory()).getDirectoryHandle("wasmbox-runtime");
  } catch {}
  if (root)
    for await (const runtime of root.values())
      for await (const file of runtime.values())
        for await (const entry of file.values())
          if ((await entry.getFile()).size > 0) kept.push(file.name);
  const wheel = (name, file) => file.startsWith(`${name}-`) && file.endsWith(".whl");
  return packages.every((name) => kept.some((file) => wheel(name, file)));
}"""


def wait_until_ready_offline(page: Page, packages: list[str], timeout_ms: float) -> None:
    """The service worker controls the page and each package's wheel is kept (polled: the
    predicate is async, which Playwright's wait_for_function would take as true at once)."""
    poll(page, READY_OFFLINE, packages, timeout_ms)
