// Types for got-digest.mjs (plain JavaScript, shared with the build's Node script).
export function gotDigest(got: Record<string, { value: unknown }>): { count: number; fnv1a: number };
