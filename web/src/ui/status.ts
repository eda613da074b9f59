// Always-visible state: the sandbox's life-cycle and, while something runs, the elapsed time.

export class StatusBar {
  private timer: number | undefined;

  constructor(
    private readonly stateElement: HTMLElement,
    private readonly activity: HTMLElement,
    private readonly progress: HTMLProgressElement,
  ) {}

  showSandbox(state: string): void {
    this.stateElement.textContent = `Sandbox: ${state}`;
    this.stateElement.dataset.state = state;
    this.progress.hidden = state !== "starting";
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
