// The global offset table as a count and a digest of its sorted name=value lines (FNV-1a, cheap
// enough to check synchronously while a worker links). One definition for both sides: the build
// records it (builder/make_package_snapshot.mjs, in Node) and the worker checks it
// (sandbox/side-modules.ts); plain JavaScript so that Node runs it as it is.

/**
 * @param {Record<string, { value: unknown }>} got
 * @returns {{ count: number, fnv1a: number }}
 */
export function gotDigest(got) {
  const lines = Object.entries(got)
    .map(([name, cell]) => `${name}=${String(cell.value)}`)
    .sort();
  let hash = 0x811c9dc5;
  for (const line of lines)
    for (let i = 0; i <= line.length; i++) {
      hash ^= i < line.length ? line.charCodeAt(i) : 10;
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
  return { count: lines.length, fnv1a: hash };
}
