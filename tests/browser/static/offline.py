"""Waiting until a page of the export will work offline: what its reload needs is in its caches."""

from __future__ import annotations

from playwright.sync_api import Page

from tests.support.engines.base import poll

# The service worker controls the page once its precache holds this build (the app, the SDK and
# the boot runtime). A package wheel is kept apart from that: in the page's runtime store, written
# in the background once the page is idle, or in the worker's wheel cache when the worker already
# controlled the page as it fetched the wheel. Neither is implied by the worker's control.
READY_OFFLINE = """async (packages) => {
  if (navigator.serviceWorker.controller === null) return false;
  const kept = [];
  for (const cache of await caches.keys())
    for (const request of await (await caches.open(cache)).keys())
      kept.push(decodeURIComponent(new URL(request.url).pathname.split("/").pop()));
  const wheel = (name, file) => file.startsWith(`${name}-`) && file.endsWith(".whl");
  return packages.every((name) => kept.some((file) => wheel(name, file)));
}"""


def wait_until_ready_offline(page: Page, packages: list[str], timeout_ms: float) -> None:
    """The service worker controls the page and each package's wheel is kept (polled: the
    predicate is async, which Playwright's wait_for_function would take as true at once)."""
    poll(page, READY_OFFLINE, packages, timeout_ms)
