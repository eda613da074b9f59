// Registers the service worker next to the app or the embed (sw.js at the export's top), and
// tells the user when a new build is installed and waiting: it takes over only on their reload.
import { Sandbox } from "wasmbox";

export interface UpdateNotice {
  /** Called once a new build is ready; `apply` activates it and reloads the page. */
  (apply: () => void): void;
}

/**
 * Register once no sandbox of the page is starting or running code (`Sandbox.whenIdle`): the
 * worker's install downloads the whole boot runtime again, which would compete with the first
 * sandbox's start for the network, the disk and the CPU.
 */
export function registerOffline(swUrl: URL, onUpdate: UpdateNotice): void {
  if (!("serviceWorker" in navigator) || !isSecureContext) return; // offline needs a secure context
  void Sandbox.whenIdle().then(() => register(swUrl, onUpdate));
}

function register(swUrl: URL, onUpdate: UpdateNotice): void {
  void navigator.serviceWorker.register(swUrl, { updateViaCache: "none" }).then(
    (registration) => {
      const offer = (worker: ServiceWorker) =>
        onUpdate(() => {
          navigator.serviceWorker.addEventListener("controllerchange", () => location.reload(), { once: true });
          worker.postMessage({ type: "SKIP_WAITING" });
        });
      // Only an update (a page already controlled by an older build) needs a reload.
      if (registration.waiting && navigator.serviceWorker.controller) offer(registration.waiting);
      registration.addEventListener("updatefound", () => {
        const installing = registration.installing;
        installing?.addEventListener("statechange", () => {
          if (installing.state === "installed" && navigator.serviceWorker.controller) offer(installing);
        });
      });
    },
    () => undefined, // no service worker (e.g. a private window): the page works online as before
  );
}
