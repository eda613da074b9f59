// The local model: an in-page chat backend for the agent (docs/local-model.md).
export { localModel, DEFAULT_CONTEXT_SIZE, DEFAULT_MAX_TOKENS } from "./local-model.js";
export type { LocalModel, LocalModelInfo, LocalModelOptions, LocalModelProgress } from "./local-model.js";
export type { LocalTimings } from "./chat.js";
export { LocalModelError, type LocalModelErrorType } from "./errors.js";
export { forgetWeights as forgetLocalModel } from "./weights.js";
