// The code-execution agent: ask the model → run its `run_python` calls in the sandbox → send back
// the results → repeat until it answers in text or the step limit is reached. Every model-side
// failure ends `ask` with a ChatError (never an empty answer).
import type { Environment, ExecutionResult, FileInfo } from "../../protocol/types.js";
import { httpChat, type HttpChatOptions } from "./chat-http.js";
import { ChatError, type ChatFn, type ChatMessage, type ToolCall } from "./chat-types.js";
import {
  groundingRequest,
  groundingSources,
  omitsResult,
  repairRequest,
  resultRequest,
  RUN_HOW,
  ungroundedNumbers,
  type RunFailure,
} from "./grounding.js";
import { capText, reportText, resultForModel, resultTextForModel } from "./model-result.js";
import { recordRun, type CodePart, type ResultPart, type RunSandbox } from "./record.js";
import { replayTranscript, type ReplayOptions, type ReplayReport } from "./replay.js";
import { systemPrompt, type ResumedState } from "./prompt.js";
import { ToolSet, type Tools } from "../tools.js";
import {
  attemptedCall,
  classifyReply,
  CODE_BLOCK_HELP,
  INVALID_CALL_HELP,
  throughLastBlock,
  type ReplyForm,
} from "./reply-forms.js";
import { RUN_PYTHON_TOOL, ToolCallAssembler, type CodeOrProblem } from "./tool-calls.js";
import { appendText, newTranscript, startTurn, type Part, type Transcript, type Turn } from "./transcript.js";

export const DEFAULT_MAX_STEPS = 8;

/** What the agent needs of a sandbox (the SDK's `Sandbox` has it all). */
export interface AgentSandbox extends RunSandbox {
  /** With these two the system prompt describes the real environment and files. */
  environment?(): Promise<Environment>;
  listFiles?(): Promise<FileInfo[]>;
  /** The working directory's data files previewed by the kernel: in the system prompt. */
  describeFiles?(): Promise<string>;
  /** A resumed or forked sandbox's report: the prompt names the variables that did not come back. */
  readonly resumeReport?: ResumedState | null;
}

/** "auto" streams, and falls back to one JSON answer for the session when a server cannot stream tool calls. */
export type StreamingMode = "auto" | "always" | "never";

export interface AgentCreateOptions {
  sandbox: AgentSandbox;
  model: string;
  /** An OpenAI-compatible server (`{ baseUrl, apiKey? }`, the app's proxy is `{ baseUrl: "/api" }`) or a function. */
  chat: HttpChatOptions | ChatFn;
  maxSteps?: number;
  /** Replaces the system prompt the agent writes from the sandbox's environment. */
  system?: string;
  /** One mode, or a mode per model name (others "auto"). */
  streaming?: StreamingMode | Record<string, StreamingMode>;
  /** Continue this transcript (its turns are shown, not replayed to the model). */
  transcript?: Transcript;
  /**
   * Run the transcript's code in the sandbox again before `create` resolves, so its variables and
   * files are back (`agent.replay()`; the report is `agent.replayed`). Default false.
   */
  replay?: boolean;
  /** Continue this model-side conversation (a saved `agent.messages`): the model sees the earlier turns. */
  messages?: ChatMessage[];
  /**
   * Host tools for "code mode": the model calls them as Python functions inside `run_python`
   * (`from wasmbox import tools`), so one program may call many; given to each run beside the
   * sandbox's own tools, and listed in the system prompt with their Python signatures.
   */
  tools?: Tools;
  /**
   * "numbers" (default): a final answer stating numbers no run printed or returned (and not in
   * the user's messages) is sent back once, naming them; those still unproven are the model
   * turn's `ungrounded`. "off": answers are not checked.
   */
  verify?: "numbers" | "off";
  /** The data files' previews in the system prompt (default true). */
  context?: boolean;
  /** The kernel's repair hints in the results the model reads (default true). */
  hints?: boolean;
  /**
   * ```python blocks in a reply with no call. "run" (default): run as the model's program when it
   * is code not yet run in this message (the prompt says so); a block repeating code that ran
   * explains it. "ask": never run; before any run the model is asked once to call run_python.
   */
  codeBlocks?: "run" | "ask";
}

export interface AskOptions {
  signal?: AbortSignal;
  onEvent?: (event: AgentEvent) => void;
}

export type AgentEvent =
  | { type: "turn"; turn: Turn }
  | { type: "model"; model: string; previous: string | null }
  | { type: "text"; text: string }
  /** A piece of a native tool call's arguments (JSON text) as it streams, before the call is
   * complete: a page can ready what the code names (a chart library) early. */
  | { type: "call-arguments"; text: string }
  | { type: "code"; part: Extract<Part, { kind: "executable_code" }>; form: ReplyForm }
  | { type: "output"; callId: string; stream: "stdout" | "stderr"; text: string }
  /** The run imported plotly or altair (the first time in its sandbox's worker), while it runs:
   * a page can ready that chart library even when the code does not name it. */
  | { type: "import"; callId: string; module: string }
  | { type: "result"; part: Extract<Part, { kind: "code_execution_result" }> }
  | { type: "invalid-call"; form: ReplyForm; problem: string }
  | { type: "ungrounded"; numbers: string[] }
  | { type: "notice"; text: string }
  | { type: "step-limit"; steps: number };

interface ModelReply {
  content: string;
  calls: ToolCall[];
}

const NUDGE =
  "You wrote Python in a code block but did not call the run_python tool, so nothing ran. " +
  `To run it: ${INVALID_CALL_HELP} If it was only an illustration, answer without running it.`;

const REPEATED_FAILURE =
  "That program already ran in this message and failed: read its error and hint above, then " +
  "write the corrected program. Do not answer before a run has worked.";

// Small models echo the call they just made as if it were its result, and would loop re-running it.
const ALREADY_RAN =
  "Not run again: this is the program that just ran and worked, and its result is above. " +
  "Answer the user from that result now.";

const callHelp = (codeBlocks: "run" | "ask"): string => (codeBlocks === "run" ? CODE_BLOCK_HELP : INVALID_CALL_HELP);

const isChatError = (e: unknown): e is ChatError =>
  typeof e === "object" && e !== null && (e as { name?: unknown }).name === "ChatError";

/**
 * Servers that refuse `content: null` beside tool calls: Ollama answers 400, llama-cpp-python's
 * server 500 (its request model wants a string); through the proxy that is a 502 naming the status.
 */
const NULL_CONTENT_REFUSALS = [400, 422, 500];
const refusedNullContent = (e: unknown): boolean =>
  isChatError(e) &&
  e.type === "http" &&
  NULL_CONTENT_REFUSALS.some(
    (status) => e.status === status || (e.code === "upstream_status" && e.message.includes(`(HTTP ${status})`)),
  );

/** A streamed request the server could not answer as a stream (nothing came, or it said so). */
const streamingUnsupported = (e: unknown): boolean =>
  isChatError(e) && (e.type === "empty-stream" || (e.type === "http" && e.code === "upstream_malformed"));

export class Agent {
  readonly transcript: Transcript;
  /** The conversation as the model sees it; `[0]` is the system prompt. */
  readonly messages: ChatMessage[] = [{ role: "system", content: "" }];
  private current: string;
  private lastAsked: string | null = null;
  private readonly chat: ChatFn;
  private readonly noStreaming = new Set<string>();
  /** Send `""` instead of `null` as the content of tool-call-only messages (learnt from a refusal). */
  private emptyContent = false;
  private busy = false;
  /** The report of the last `replay()` (set by `create` with `replay: true`). */
  replayed: ReplayReport | null = null;
  private runs = 0;
  private calls = 0;

  private constructor(private readonly options: AgentCreateOptions) {
    this.current = options.model;
    this.chat = typeof options.chat === "function" ? options.chat : httpChat(options.chat);
    this.transcript = options.transcript ?? newTranscript(options.model);
    // Ids stay unique across a restored conversation: the notebook pairs results by call id.
    this.runs = this.transcript.turns.flatMap((t) => t.parts).filter((p) => p.kind === "executable_code").length;
    for (const message of options.messages?.slice(1) ?? []) {
      this.messages.push(structuredClone(message));
      this.calls += message.role === "assistant" ? (message.tool_calls?.length ?? 0) : 0;
    }
  }

  static async create(options: AgentCreateOptions): Promise<Agent> {
    if (!options || typeof options.sandbox?.execute !== "function") throw new TypeError("Agent.create needs a sandbox");
    ToolSet.of(options.tools); // a TypeError naming a bad tool, now rather than at the first run
    if (typeof options.chat !== "function" && typeof options.chat?.baseUrl !== "string") {
      throw new TypeError("Agent.create needs chat: { baseUrl, apiKey? } or a chat function");
    }
    const { messages } = options;
    if (messages !== undefined && (!Array.isArray(messages) || !messages.every((m) => typeof m?.role === "string"))) {
      throw new TypeError("messages must be a saved agent.messages list");
    }
    const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    if (!Number.isInteger(maxSteps) || maxSteps < 1)
      throw new RangeError(`maxSteps must be a positive integer, got ${maxSteps}`);
    if (options.verify !== undefined && options.verify !== "numbers" && options.verify !== "off")
      throw new TypeError(`verify must be "numbers" or "off", got ${JSON.stringify(options.verify)}`);
    if (options.codeBlocks !== undefined && options.codeBlocks !== "run" && options.codeBlocks !== "ask")
      throw new TypeError(`codeBlocks must be "run" or "ask", got ${JSON.stringify(options.codeBlocks)}`);
    if (options.replay !== undefined && typeof options.replay !== "boolean")
      throw new TypeError(`replay must be true or false, got ${JSON.stringify(options.replay)}`);
    if (options.replay && !Array.isArray(options.transcript?.turns))
      throw new TypeError("replay: true needs the transcript to replay");
    const agent = new Agent({ ...options, maxSteps, codeBlocks: options.codeBlocks ?? "run" });
    agent.model = options.model;
    if (options.replay) await agent.replay();
    return agent;
  }

  /**
   * Run the transcript's code in the sandbox again, in order, so the restored conversation has
   * its variables again. It stops at the first run that fails where the recording did not
   * (agent/replay.ts); the transcript itself is not changed.
   */
  async replay(options: Pick<ReplayOptions, "signal" | "onStart" | "onRun"> = {}): Promise<ReplayReport> {
    if (this.busy) throw new Error("the agent is already answering a message");
    this.busy = true;
    try {
      const tools = this.options.tools;
      this.replayed = await replayTranscript(this.options.sandbox, this.transcript, {
        ...options,
        ...(tools ? { tools } : {}),
      });
      return this.replayed;
    } finally {
      this.busy = false;
    }
  }

  /** The model the next `ask` uses; a change shows in the transcript's next model turn. */
  get model(): string {
    return this.current;
  }

  set model(model: string) {
    if (typeof model !== "string" || !model.trim()) throw new TypeError("model must be a non-empty string");
    this.current = model;
  }

  /** Whether the next request to `model` streams. */
  streams(model = this.current): boolean {
    const mode = this.modeFor(model);
    return mode === "always" || (mode === "auto" && !this.noStreaming.has(model));
  }

  /** One user message, answered with as many runs as the model needs; resolves with the model turn. */
  async ask(text: string, options: AskOptions = {}): Promise<Turn> {
    if (typeof text !== "string" || !text.trim()) throw new TypeError("ask needs the message text");
    if (this.busy) throw new Error("the agent is already answering a message");
    this.busy = true;
    const signal = options.signal ?? new AbortController().signal;
    const emit = (event: AgentEvent): void => {
      try {
        options.onEvent?.(event);
      } catch {
        // a throwing handler must not break the loop
      }
    };
    try {
      return await this.answer(text, signal, emit);
    } finally {
      this.busy = false;
    }
  }

  private async answer(text: string, signal: AbortSignal, emit: (event: AgentEvent) => void): Promise<Turn> {
    this.messages[0] = { role: "system", content: await this.systemPrompt() };
    this.messages.push({ role: "user", content: text });
    const userTurn = startTurn(this.transcript, "user");
    userTurn.parts.push({ kind: "text", text });
    emit({ type: "turn", turn: userTurn });
    const model = this.current;
    const turn = startTurn(this.transcript, "model");
    turn.model = model;
    emit({ type: "turn", turn });
    if (this.lastAsked !== null && this.lastAsked !== model) emit({ type: "model", model, previous: this.lastAsked });
    this.lastAsked = model;
    try {
      turn.finish = await this.steps(turn, model, signal, emit);
      return turn;
    } catch (error) {
      turn.finish = signal.aborted ? "stopped" : "error";
      throw error;
    }
  }

  private async steps(
    turn: Turn,
    model: string,
    signal: AbortSignal,
    emit: (event: AgentEvent) => void,
  ): Promise<Turn["finish"]> {
    const maxSteps = this.options.maxSteps ?? DEFAULT_MAX_STEPS;
    let ran = false;
    let nudged = false;
    // The programs run in this message, and whether each ended OK: a block repeating one that
    // worked explains it; repeating one that failed is sent back, to be fixed.
    const programs = new Map<string, "worked" | "failed">();
    // The last program run, when it worked: the same code again right after it would print the
    // same, so it is not run again (state only changes through runs).
    let justWorked: string | null = null;
    const runCall = async (call: CodeOrProblem, form: ReplyForm): Promise<string> => {
      const { content, outcome } = await this.runOrRefuse(turn, call, form, signal, emit);
      // Only an error is the program's fault: one stopped at its deadline may run again.
      const verdict = outcome === "OUTCOME_OK" ? "worked" : outcome === "OUTCOME_FAILED" ? "failed" : null;
      if ("code" in call && verdict) programs.set(call.code.trim(), verdict);
      else if ("code" in call) programs.delete(call.code.trim());
      justWorked = "code" in call && verdict === "worked" ? call.code.trim() : null;
      return content;
    };
    const repeatsLastRun = (calls: CodeOrProblem[]): boolean =>
      calls.length > 0 && calls.every((call) => "code" in call && call.code.trim() === justWorked);
    const notRunAgain = (): void =>
      emit({ type: "notice", text: "The model asked to run again the program that just worked; not run again." });
    const help = callHelp(this.options.codeBlocks ?? "run");
    // Numbers an answer stated without a run, once sent back (the request gets a step of its own).
    const grounding: { questioned: string[] | null } = { questioned: null };
    const runHow = this.options.codeBlocks === "ask" ? RUN_HOW.tool : RUN_HOW.block;
    let repairAsked = false;
    let resultAsked = false;
    const answered = (content: string): boolean => {
      // An answer after a failed run is sent back once, with the error, to be fixed first.
      const failure = this.options.verify === "off" || repairAsked ? null : lastFailure(turn);
      if (failure) {
        repairAsked = true;
        emit({ type: "notice", text: "The model answered after a failed run; asking it to fix the code first." });
        this.messages.push({ role: "user", content: repairRequest(failure, runHow) });
        return false;
      }
      const missing =
        this.options.verify === "off" ? [] : ungroundedNumbers(content, groundingSources(this.transcript));
      if (missing.length && grounding.questioned === null) {
        grounding.questioned = missing;
        emit({
          type: "notice",
          text: `Asking the model to compute the numbers no run produced: ${missing.join(", ")}.`,
        });
        this.messages.push({ role: "user", content: groundingRequest(missing, lastPrinted(turn), runHow) });
        return false;
      }
      if (missing.length) this.markUngrounded(turn, missing, emit);
      const printed = this.options.verify === "off" || resultAsked ? "" : lastPrinted(turn);
      if (printed && omitsResult(content, printed)) {
        resultAsked = true;
        emit({ type: "notice", text: "The answer gave none of the printed result; asking the model to state it." });
        this.messages.push({ role: "user", content: resultRequest(printed) });
        return false;
      }
      return true;
    };
    // A request about the answer gets a step of its own.
    const granted = (): number => (grounding.questioned ? 1 : 0) + (resultAsked ? 1 : 0);
    for (let step = 1; step <= maxSteps + granted(); step += 1) {
      const reply = await this.reply(turn, model, signal, emit);
      const { form, calls } = classifyReply(reply.content, reply.calls, this.hostTools);
      if (form === "tool_calls") {
        const ids = reply.calls.map(() => `call${String(++this.calls).padStart(5, "0")}`);
        // Our own ids: some servers reuse theirs across turns, or send none.
        const toolCalls = reply.calls.map((call, i) => ({ ...call, id: ids[i] as string }));
        this.messages.push({ role: "assistant", content: reply.content || null, tool_calls: toolCalls });
        const repeated = repeatsLastRun(calls);
        if (repeated) notRunAgain();
        for (const [i, call] of calls.entries()) {
          const content = repeated ? ALREADY_RAN : await runCall(call, form);
          this.messages.push({ role: "tool", tool_call_id: ids[i] as string, content });
        }
        ran ||= calls.some((call) => "code" in call);
        continue;
      }
      this.messages.push({ role: "assistant", content: reply.content });
      if (form === "none") {
        const problem = ran || nudged ? null : attemptedCall(reply.content);
        if (problem) {
          // Told once what a valid call is; counted as an invalid call.
          nudged = true;
          emit({ type: "invalid-call", form, problem });
          this.messages.push({ role: "user", content: `Nothing ran: ${problem}. ${help}` });
          continue;
        }
        if (answered(reply.content)) return "answer";
        continue;
      }
      if (form === "bare-python") {
        const block = calls[0] as { code: string };
        const before = programs.get(block.code.trim());
        if (this.options.codeBlocks === "run" && before === "failed") {
          emit({ type: "notice", text: "The model wrote again a program that failed; asking it to fix it." });
          this.messages.push({ role: "user", content: REPEATED_FAILURE });
          continue;
        }
        if (this.options.codeBlocks === "ask" || before === "worked") {
          // Code shown after runs explains them; before any run it is asked for as a call, once.
          if (ran || nudged || this.options.codeBlocks === "run") {
            if (answered(reply.content)) return "answer";
            continue;
          }
          nudged = true;
          emit({ type: "notice", text: "The model wrote code without running it; asking it to run it with the tool." });
          this.messages.push({ role: "user", content: NUDGE });
          continue;
        }
        // What the model wrote after its blocks is a guess at their output: the model must read
        // the real one, not its own guess, in the conversation it is sent.
        this.messages[this.messages.length - 1] = { role: "assistant", content: throughLastBlock(reply.content) };
      } else if (repeatsLastRun(calls)) {
        // A call written as text that repeats the run before it narrates that run: the answer.
        notRunAgain();
        if (answered(reply.content)) return "answer";
        continue;
      }
      // A call written as text: run it and answer as the user, since there is no tool-call id.
      const results: string[] = [];
      const label = form === "bare-python" ? "Result of your python block" : "Result of run_python";
      for (const call of calls) {
        results.push(`${label}:\n${await runCall(call, form)}`);
      }
      this.messages.push({ role: "user", content: results.join("\n\n") });
      ran ||= calls.some((call) => "code" in call);
    }
    if (grounding.questioned) this.markUngrounded(turn, grounding.questioned, emit);
    emit({ type: "step-limit", steps: maxSteps });
    return "step-limit";
  }

  private markUngrounded(turn: Turn, numbers: string[], emit: (event: AgentEvent) => void): void {
    turn.ungrounded = numbers;
    emit({ type: "ungrounded", numbers });
  }

  /** The model's reply; streamed unless this server cannot stream tool calls. Never empty. */
  private async reply(
    turn: Turn,
    model: string,
    signal: AbortSignal,
    emit: (event: AgentEvent) => void,
  ): Promise<ModelReply> {
    const mode = this.modeFor(model);
    if (this.streams(model)) {
      let reply: ModelReply | null = null;
      try {
        reply = await this.request(turn, model, true, signal, emit);
      } catch (error) {
        if (mode === "always" || !streamingUnsupported(error)) throw error;
      }
      if (reply && (mode === "always" || !isEmpty(reply))) return nonEmpty(reply);
      this.noStreaming.add(model);
      emit({
        type: "notice",
        text: `${model} sent nothing back for a streamed request with tools; asking again without streaming (the reply comes all at once).`,
      });
    }
    return nonEmpty(await this.request(turn, model, false, signal, emit));
  }

  private async request(
    turn: Turn,
    model: string,
    stream: boolean,
    signal: AbortSignal,
    emit: (event: AgentEvent) => void,
  ): Promise<ModelReply> {
    try {
      return await this.requestOnce(turn, model, stream, signal, emit);
    } catch (error) {
      const hasNull = this.messages.some((m) => m.role === "assistant" && m.content === null);
      if (this.emptyContent || !hasNull || !refusedNullContent(error)) throw error;
      this.emptyContent = true;
      return await this.requestOnce(turn, model, stream, signal, emit);
    }
  }

  private outgoing(): ChatMessage[] {
    if (!this.emptyContent) return this.messages;
    return this.messages.map((m) => (m.role === "assistant" && m.content === null ? { ...m, content: "" } : m));
  }

  private async requestOnce(
    turn: Turn,
    model: string,
    stream: boolean,
    signal: AbortSignal,
    emit: (event: AgentEvent) => void,
  ): Promise<ModelReply> {
    const calls = new ToolCallAssembler();
    let content = "";
    const request = {
      model,
      messages: this.outgoing(),
      tools: [RUN_PYTHON_TOOL],
      tool_choice: "auto" as const,
      stream,
    };
    for await (const delta of this.chat(request, signal)) {
      if (delta.content) {
        content += delta.content;
        appendText(turn, delta.content);
        emit({ type: "text", text: delta.content });
      }
      if (delta.tool_calls?.length) {
        const text = calls.add(delta.tool_calls);
        if (text) emit({ type: "call-arguments", text });
      }
    }
    signal.throwIfAborted();
    return { content, calls: calls.done() };
  }

  private async runOrRefuse(
    turn: Turn,
    call: CodeOrProblem,
    form: ReplyForm,
    signal: AbortSignal,
    emit: (event: AgentEvent) => void,
  ): Promise<{ content: string; outcome: string }> {
    // A native call is answered in a tool message, as JSON; a call written as text, in text.
    const native = form === "tool_calls";
    if ("problem" in call) {
      emit({ type: "invalid-call", form, problem: call.problem });
      const report = {
        outcome: "INVALID_CALL",
        error: `The call could not be run: ${call.problem}.`,
        // A model that calls natively is told the native form; one writing text, its own options.
        help: native ? INVALID_CALL_HELP : callHelp(this.options.codeBlocks ?? "run"),
      };
      return { content: native ? JSON.stringify(report) : reportText(report), outcome: report.outcome };
    }
    const result = await this.run(turn, call.code, form, signal, emit);
    const options = { hints: this.options.hints ?? true };
    const content = native ? resultForModel(result, options) : resultTextForModel(result, options);
    return { content, outcome: result.outcome };
  }

  private async run(
    turn: Turn,
    code: string,
    form: ReplyForm,
    signal: AbortSignal,
    emit: (event: AgentEvent) => void,
  ): Promise<ExecutionResult> {
    const hooks = {
      onCode: (part: CodePart) => emit({ type: "code", part, form }),
      onOutput: (callId: string, stream: "stdout" | "stderr", text: string) =>
        emit({ type: "output", callId, stream, text }),
      onImport: (callId: string, module: string) => emit({ type: "import", callId, module }),
      onResult: (part: ResultPart) => emit({ type: "result", part }),
    };
    const callId = `run_${++this.runs}`;
    const result = await recordRun(this.options.sandbox, turn, code, callId, signal, hooks, this.options.tools);
    signal.throwIfAborted();
    return result;
  }

  private modeFor(model: string): StreamingMode {
    const { streaming } = this.options;
    if (typeof streaming === "string") return streaming;
    return streaming?.[model] ?? "auto";
  }

  /** The names of the host tools the code is granted (code mode). */
  private get hostTools(): string[] {
    return ToolSet.of(this.options.tools)
      .describe()
      .map((tool) => tool.name);
  }

  private async systemPrompt(): Promise<string> {
    if (this.options.system !== undefined) return this.options.system;
    const { sandbox } = this.options;
    const agentTools = ToolSet.of(this.options.tools).describe();
    const style = { codeBlocks: this.options.codeBlocks ?? "run" };
    if (!sandbox.environment || !sandbox.listFiles) return systemPrompt(null, agentTools, style);
    const [environment, files, preview] = await Promise.all([
      sandbox.environment(),
      sandbox.listFiles(),
      this.options.context !== false && sandbox.describeFiles ? sandbox.describeFiles() : Promise.resolve(null),
    ]);
    // A run's tools replace the sandbox's of the same name, as the prompt then says.
    const named = new Map([...(environment.tools ?? []), ...agentTools].map((tool) => [tool.name, tool]));
    const context = { environment, files, preview, resumed: sandbox.resumeReport ?? null };
    return systemPrompt(context, [...named.values()], style);
  }
}

/** The failure of this turn's last run, or null when it worked (or nothing ran). */
function lastFailure(turn: Turn): RunFailure | null {
  const last = [...turn.parts].reverse().find((p) => p.kind === "code_execution_result");
  if (last?.kind !== "code_execution_result" || last.outcome === "OUTCOME_OK") return null;
  const { error } = last.result;
  if (last.outcome !== "OUTCOME_FAILED" || !error) return { what: `it ended as ${last.outcome}` };
  return { what: `${error.name}: ${error.message}`, hint: error.hint };
}

/** What this turn's last successful run printed (stdout, then its value), capped. */
function lastPrinted(turn: Turn): string {
  const last = [...turn.parts].reverse().find((p) => p.kind === "code_execution_result" && p.outcome === "OUTCOME_OK");
  if (last?.kind !== "code_execution_result") return "";
  const { stdout, value } = last.result;
  return capText([stdout, value?.["text/plain"] ?? ""].filter(Boolean).join("\n"), 1_500);
}

const isEmpty = (reply: ModelReply): boolean => !reply.content.trim() && reply.calls.length === 0;

function nonEmpty(reply: ModelReply): ModelReply {
  if (isEmpty(reply)) throw new ChatError("empty-reply", "the model's reply was empty: no text and no tool call");
  return reply;
}
