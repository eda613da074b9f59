// The page's storage as a persisted session sees it: asked to persist once, and its estimate.

export interface StorageReport {
  usage: number | null;
  quota: number | null;
  /** Whether the browser agreed not to evict this origin's storage under pressure. */
  persisted: boolean | null;
}

let asked: Promise<boolean> | null = null;

/** Ask for persistent storage, once per page (browsers remember the answer). */
export function askPersistentStorage(): Promise<boolean> {
  const storage = globalThis.navigator?.storage;
  asked ??= storage?.persist ? storage.persist().catch(() => false) : Promise.resolve(false);
  return asked;
}

export async function storageReport(): Promise<StorageReport> {
  const storage = globalThis.navigator?.storage;
  const [estimate, persisted] = await Promise.all([
    storage?.estimate?.().catch(() => null) ?? null,
    storage?.persisted?.().catch(() => null) ?? null,
  ]);
  return {
    usage: estimate?.usage ?? null,
    quota: estimate?.quota ?? null,
    persisted,
  };
}
