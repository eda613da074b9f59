// wasmbox SDK entry point, served at /sdk/wasmbox.js.
export { Sandbox } from "./sandbox.js";
export type {
  RestartedDetail,
  RestartedEvent,
  SandboxEnvironment,
  SaveFailedEvent,
  StateChangeEvent,
} from "./events.js";
export { SessionLocked } from "./session/lock.js";
export type { ResumeReport } from "./session/persisted.js";
export { SessionNotFound } from "./session/saved.js";
export { SessionStorageFull } from "./session/store.js";
export type { ModeReport, SandboxMode } from "./mode.js";
export type { InputHandler, ToolDefinition, ToolInfo, Tools } from "./tools.js";
export { SandboxError, type SandboxErrorType } from "./errors.js";
export { LIMITS } from "../protocol/limits.js";
export { OUTCOMES } from "../protocol/types.js";
export type { CreateOptions, ExecuteOptions, FileInput, SandboxInfo, SandboxState, StartProgress } from "./options.js";
export type {
  Environment,
  ExecutionResult,
  FileInfo,
  Outcome,
  Policy,
  SkippedVariable,
  StateRestored,
  ToolCallRecord,
  Validation,
} from "../protocol/types.js";
export type { HistoryEntry } from "./session/store.js";
export { Agent, DEFAULT_MAX_STEPS } from "./agent/agent.js";
export type { AgentCreateOptions, AgentEvent, AgentSandbox, AskOptions, StreamingMode } from "./agent/agent.js";
export {
  ChatError,
  type ChatDelta,
  type ChatErrorType,
  type ChatFn,
  type ChatMessage,
  type ChatRequest,
} from "./agent/chat-types.js";
export { httpChat, type HttpChatOptions } from "./agent/chat-http.js";
export {
  classifyReply,
  textToolCalls,
  type ClassifiedReply,
  type ReplyForm,
  type TextCallForm,
  type TextToolCall,
} from "./agent/reply-forms.js";
export { outputText, resultForModel } from "./agent/model-result.js";
export { newTranscript, type Part, type Transcript, type Turn } from "./agent/transcript.js";
export { recordRun, type RecordHooks } from "./agent/record.js";
export {
  outputShape,
  replayTranscript,
  sameOutput,
  type ReplayOptions,
  type ReplayReport,
  type ReplayedRun,
} from "./agent/replay.js";
export { parseTranscript } from "./agent/transcript-schema.js";
export {
  localModel,
  forgetLocalModel,
  LocalModelError,
  type LocalModel,
  type LocalModelErrorType,
  type LocalModelInfo,
  type LocalModelOptions,
  type LocalModelProgress,
  type LocalTimings,
} from "./local-model/index.js";
