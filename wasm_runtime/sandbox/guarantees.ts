// The worker checks, before it runs anything, that the browser really applied the two things the
// sandbox's guarantees rest on: an opaque origin (no reach into the host page's storage) and the
// Content-Security-Policy (no network: a browser that lets eval through has not applied it).
// A browser that fails either gets no sandbox at all: start-up fails with the reason.

/** Why code must not run in this worker, or null when both guarantees hold. */
export function missingGuarantee(scope: { origin: string } = self): string | null {
  if (scope.origin !== "null") {
    return `the sandbox worker runs in origin ${scope.origin}, not an opaque one, so it could reach the page's storage`;
  }
  if (evalAllowed()) {
    return "this browser did not apply the sandbox's Content-Security-Policy to its worker (eval is allowed), so network access could not be blocked";
  }
  return null;
}

function evalAllowed(): boolean {
  try {
    return new Function("return true")() === true;
  } catch {
    return false;
  }
}
