// When each start-up step of this worker ended, sent with `booted` so the host page can show the
// worker's part of its start as performance marks. Times are ms since the epoch: the worker's
// clock starts later than the page's, and the epoch is the one both can convert.

export interface BootStep {
  name: string;
  at: number;
}

const MAX_STEPS = 24; // the protocol's cap
const steps: BootStep[] = [];

export function bootStep(name: string): void {
  if (steps.length < MAX_STEPS) steps.push({ name, at: performance.timeOrigin + performance.now() });
}

export function bootSteps(): BootStep[] {
  return [...steps];
}
