// wasmbox SDK entry point, served at /sdk/wasmbox.js.
export { Sandbox } from "./sandbox.js";
export type { CreateOptions, ExecuteOptions, FileInput, SandboxInfo, SandboxState, StartProgress } from "./options.js";
export type { Environment, ExecutionResult, FileInfo, Outcome, Policy, Validation } from "../protocol/types.js";
