// What Pyodide's loader and the worker's background steps say ("Loading numpy…", a preload that
// failed): kept out of every run's output, and shown by `environment()` to explain a package that
// did not load. Only the latest lines are kept, so a long-lived worker does not grow it forever.

const MAX_LINES = 200;
const MAX_LINE = 1000;

class LoaderLog {
  private readonly lines: string[] = [];

  push(line: string): void {
    this.lines.push(line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line);
    if (this.lines.length > MAX_LINES) this.lines.splice(0, this.lines.length - MAX_LINES);
  }

  /** The latest `count` lines, oldest first. */
  tail(count = MAX_LINES): string[] {
    return this.lines.slice(-count);
  }
}

export const loaderLog = new LoaderLog();
