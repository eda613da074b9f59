// The events a Sandbox dispatches, and what `environment()` answers.
import type { BootedFrom, Environment, StateRestored } from "../protocol/types.js";
import type { ModeReport } from "./mode.js";
import type { SandboxState } from "./options.js";
import type { ToolInfo } from "./tools.js";

/** Dispatched by a Sandbox whenever `state` changes; `detail.state` is the new state. */
export type StateChangeEvent = CustomEvent<{ state: SandboxState }>;
/** Dispatched by a persisted Sandbox when a save fails; what was saved before is intact. */
export type SaveFailedEvent = CustomEvent<{ error: Error }>;
/** What a `restarted` event says: the worker was lost while idle, and what came back (persisted only). */
export interface RestartedDetail {
  reason: string;
  stateRestored: StateRestored | null;
}
/** Dispatched when the worker was lost while idle and a new one is ready; the next result says so too. */
export type RestartedEvent = CustomEvent<RestartedDetail>;

/**
 * `environment()`: the kernel's description plus how this browser lets runs be stopped, and the
 * snapshot the worker started from ("packages": numpy and pandas came imported; see StartSnapshot).
 */
export type SandboxEnvironment = Environment & ModeReport & { snapshot: BootedFrom; tools: ToolInfo[] };
