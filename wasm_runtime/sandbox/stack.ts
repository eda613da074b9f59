// How deep recursion through C (one Python frame per level: `__repr__` calling `repr`,
// `sorted(key=...)` calling back) can go before the worker's stack overflows. The browser sizes a
// worker's stack and no page can change it. Measured per engine in fresh sandbox workers
// (`make bench-reliability BROWSER=...`, Pyodide 0.27.7), a little under the deepest level
// that always ran: a fresh worker's WebAssembly is not yet optimised and its frames are larger
// (Chromium: 350 overflowed in a fresh worker, 400 ran in a warm one). Plain Python recursion
// uses no C stack on Python 3.12 and passed 50,000 levels in all three, so the recursion limit
// is CPython's 1000 everywhere; past these depths the overflow is caught at once (fatal.ts).
const C_STACK_LEVELS = {
  chromium: 300, // Chromium 156: 325 ran in fresh workers, 350 did not always
  firefox: 700, // Firefox 153 ESR: 750 ran, 1000 overflowed
  webkit: 1250, // WebKitGTK 2.50: 1500 ran, sorted(key=...) 2000 overflowed
} as const;

export type BrowserEngine = keyof typeof C_STACK_LEVELS;

/** The engine a user agent string names (every Chromium UA also says "Safari": order matters). */
export function engineOf(userAgent: string): BrowserEngine | null {
  if (/\bFirefox\//.test(userAgent)) return "firefox";
  if (/\b(Chrome|Chromium|HeadlessChrome)\//.test(userAgent)) return "chromium";
  if (/\bAppleWebKit\//.test(userAgent)) return "webkit";
  return null;
}

/** The measured depth for this worker's engine, or null for an engine not measured. */
export function cStackLevels(userAgent: string): number | null {
  const engine = engineOf(userAgent);
  return engine ? C_STACK_LEVELS[engine] : null;
}
