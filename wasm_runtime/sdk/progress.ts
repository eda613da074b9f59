// A start's `onProgress`: the page's runtime downloads as they arrive, then "ready" once.
import type { StartProgress } from "./options.js";
import { watchDownloads, type DownloadTotals } from "./runtime-files.js";

/** Report to `onProgress` until the returned function is called (with `ready`: a last "ready" report). */
export function followStart(onProgress: ((progress: StartProgress) => void) | undefined): (ready: boolean) => void {
  const report = (phase: StartProgress["phase"], totals: DownloadTotals) => {
    try {
      onProgress?.({ phase, ...totals });
    } catch {
      // a throwing progress callback must not break start-up
    }
  };
  const stopWatching = onProgress
    ? watchDownloads((t) => report(t.loadedBytes < t.totalBytes ? "downloading" : "starting", t))
    : () => undefined;
  return (ready) => {
    stopWatching();
    if (ready) watchDownloads((t) => report("ready", t))();
  };
}
