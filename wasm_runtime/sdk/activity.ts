// Which sandboxes of a page are starting or running code, and when one last changed state. The
// page's registry owns one and hands it to whatever must not compete with a sandbox for the CPU:
// the warm pool (a spare's refill waits for it) and background work (runtime files kept for a
// later visit, `Sandbox.whenIdle`).

export class Activity {
  private readonly active = new Set<object>();
  private readonly waiting = new Set<() => void>();
  private changedAt = 0;

  /** `owner` (a sandbox) changed state: it is now starting or running code (`busy`), or not. */
  note(owner: object, busy: boolean): void {
    this.changedAt = performance.now();
    if (busy) this.active.add(owner);
    else this.active.delete(owner);
    if (this.active.size === 0) for (const wake of [...this.waiting]) wake();
  }

  /** Whether any sandbox of the page is starting or running code. */
  get busy(): boolean {
    return this.active.size > 0;
  }

  /** Milliseconds since a sandbox last started, began or ended a run, or closed: a sample of
   * `busy` would miss runs that come often but briefly, as a program's calls do. */
  sinceChange(): number {
    return performance.now() - this.changedAt;
  }

  /** Call `wake` each time the page's last busy sandbox stops being busy, until the returned function is called. */
  onIdle(wake: () => void): () => void {
    this.waiting.add(wake);
    return () => void this.waiting.delete(wake);
  }
}
