// Always-visible state: the sandbox's life-cycle (with download progress while it starts) and,
// while something runs, the elapsed time.
import type { StartProgress } from "wasmbox";

const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);

export class StatusBar {
  private timer: number | undefined;
  private startDetail = "";
  private state = "starting";

  constructor(
    private readonly stateElement: HTMLElement,
    private readonly activity: HTMLElement,
    private readonly progress: HTMLProgressElement,
  ) {}

  showSandbox(state: string): void {
    this.state = state;
    const detail = state === "starting" && this.startDetail ? ` (${this.startDetail})` : "";
    this.stateElement.textContent = `Sandbox: ${state}${detail}`;
    this.stateElement.dataset.state = state;
    this.progress.hidden = state !== "starting";
  }

  /** The sandbox could not start (e.g. an engine that refuses it): say so where "starting" was. */
  showStartFailure(reason: string): void {
    this.showSandbox("failed to start");
    this.stateElement.dataset.state = "failed";
    this.stateElement.title = reason;
  }

  showStartProgress({ phase, loadedBytes, totalBytes }: StartProgress): void {
    if (phase === "downloading" && totalBytes > 0) {
      this.progress.max = totalBytes;
      this.progress.value = loadedBytes;
      this.startDetail = `downloading Python: ${mb(loadedBytes)} of ${mb(totalBytes)} MB`;
    } else {
      this.progress.removeAttribute("value"); // indeterminate while Python boots
      this.startDetail = phase === "ready" ? "" : "starting Python";
    }
    this.progress.setAttribute("aria-valuetext", this.startDetail || "ready");
    if (this.state === "starting") this.showSandbox(this.state);
  }

  /** Show "label… 1.2 s" until the returned function is called. */
  running(label: string): () => void {
    const started = performance.now();
    const tick = (): void => {
      this.activity.textContent = `${label}… ${((performance.now() - started) / 1000).toFixed(1)} s`;
    };
    tick();
    window.clearInterval(this.timer);
    this.timer = window.setInterval(tick, 100);
    return () => {
      window.clearInterval(this.timer);
      this.activity.textContent = "";
    };
  }
}
