// One page's sandboxes: those open, which of them are starting or running code (the Activity the
// warm pool and background work wait on), and the saved sessions' catalog once read. The Sandbox
// class makes its registry on first use, so importing the SDK reads no storage and starts nothing.
import { Activity } from "./activity.js";
import { loadCatalog } from "./session/catalog.js";

export class Registry<T> {
  readonly open = new Map<string, T>();
  readonly activity = new Activity();
  private catalog: Promise<void> | null = null;

  /** Resolves once the saved sessions are read, the expired ones removed first; read once per page. */
  catalogRead(): Promise<void> {
    this.catalog ??= loadCatalog();
    return this.catalog;
  }
}
