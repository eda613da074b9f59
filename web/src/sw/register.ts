// Registers the service worker next to the app or the embed (sw.js at the export's top), and
// tells the user when a new build is installed and waiting: it takes over only on their reload.
export interface UpdateNotice {
  /** Called once a new build is ready; `apply` activates it and reloads the page. */
  (apply: () => void): void;
}

export function registerOffline(swUrl: URL, onUpdate: UpdateNotice): void {
  if (!("serviceWorker" in navigator) || !isSecureContext) return; // offline needs a secure context
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
