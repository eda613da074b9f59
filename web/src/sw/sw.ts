// The service worker (sw.js): the app, the SDK, the embed, the examples and the runtime files every
// sandbox boots with are precached under their content hashes (the list is written in at export or
// serve time: backend/offline.py); package wheels and chart libraries are cached the first time a
// page uses them.
// A new build is a new precache: its worker installs the whole set, then waits until the page
// asks it to take over (SKIP_WAITING, once the user agrees to reload), so a page never gets a mix
// of two builds' files; then the caches of the old build are deleted.
/// <reference lib="webworker" />
import { clientsClaim } from "workbox-core";
import { cleanupOutdatedCaches, precacheAndRoute, type PrecacheEntry } from "workbox-precaching";
import { registerRoute } from "workbox-routing";
import { CacheFirst } from "workbox-strategies";

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: PrecacheEntry[] };
/** Changes with every build's runtime; wheels are cached per build (written in with the list). */
declare const __WASMBOX_WHEEL_CACHE__: string;
const WHEEL_PREFIX = "wasmbox-wheels-";

// A folder's page is precached as the folder (`./`): a page opened by its file name
// (`/index.html`) is the same entry.
const asFolder = ({ url }: { url: URL }): URL[] => (url.pathname.endsWith("/index.html") ? [new URL("./", url)] : []);
precacheAndRoute(self.__WB_MANIFEST, { ignoreURLParametersMatching: [/.*/], urlManipulation: asFolder });
cleanupOutdatedCaches();
// The first build a page sees may claim it (nothing older to mix with); a later one waits.
clientsClaim();

// Runtime files the precache does not hold (package wheels): versioned names, so cache-first.
const runtimeFolder = new URL("runtime/", self.registration.scope).href;
registerRoute(({ url }) => url.href.startsWith(runtimeFolder), new CacheFirst({ cacheName: __WASMBOX_WHEEL_CACHE__ }));
// The local model's engine (9 MB), cached the first time a page uses it (precached when the site
// ships a model). The weights are not: the page's model store keeps them (sdk/local-model/weights.ts).
const engineFolder = new URL("sdk/local-model/", self.registration.scope).href;
registerRoute(({ url }) => url.href.startsWith(engineFolder), new CacheFirst({ cacheName: __WASMBOX_WHEEL_CACHE__ }));
// The chart libraries, fetched the first time a chart appears: named by content, so cache-first too.
const chartsFolder = new URL("charts/", self.registration.scope).href;
registerRoute(({ url }) => url.href.startsWith(chartsFolder), new CacheFirst({ cacheName: __WASMBOX_WHEEL_CACHE__ }));

self.addEventListener("message", (event) => {
  if ((event.data as { type?: unknown } | null)?.type === "SKIP_WAITING") void self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  const stale = async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith(WHEEL_PREFIX) && key !== __WASMBOX_WHEEL_CACHE__) await caches.delete(key);
    }
  };
  event.waitUntil(stale());
});
