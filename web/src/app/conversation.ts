// One conversation: the chat's agent and the console's runs, recorded in one transcript, saved with
// its sandbox after each activity so a reload brings it back.
import {
  Agent,
  recordRun,
  type AgentCreateOptions,
  type ChatFn,
  type HttpChatOptions,
  type StreamingMode,
  type Transcript,
} from "wasmbox";
import type { ChatView } from "../ui/chat-view.js";
import { titleFrom, type SavedConversation } from "./saved.js";
import type { Session } from "./session.js";

/**
 * `?assist=off` in the page's URL: no file previews, no repair hints, no check of the answer's
 * numbers (to measure what they bring: `make bench-agent`). On by default.
 */
export function assistOptions(search = location.search): Pick<AgentCreateOptions, "verify" | "context" | "hints"> {
  const off = new URLSearchParams(search).get("assist") === "off";
  return off ? { verify: "off", context: false, hints: false } : { verify: "numbers" };
}

/**
 * `?codeblocks=ask` in the page's URL: ```python blocks the model writes are not run (it is asked
 * to call run_python instead), to measure what running them brings. Run by default.
 */
export function codeBlockOptions(search = location.search): Pick<AgentCreateOptions, "codeBlocks"> {
  return { codeBlocks: new URLSearchParams(search).get("codeblocks") === "ask" ? "ask" : "run" };
}

/** The app's backend proxy: the server keeps the API key. */
export const PROXY: HttpChatOptions = { baseUrl: "/api" };

export class Conversation {
  readonly transcript: Transcript;
  private agent: Agent | null = null;
  private consoleRuns: number;

  constructor(
    readonly session: Promise<Session>,
    private readonly view: ChatView,
    private readonly streaming: () => Record<string, StreamingMode>,
    private readonly saved: SavedConversation,
    /** The proxy, or on a static host the user's endpoint (read when the first message is sent). */
    private readonly chat: () => HttpChatOptions | ChatFn = () => PROXY,
  ) {
    this.transcript = saved.transcript;
    // Call ids stay unique across reloads: the notebook pairs results with their code by id.
    this.consoleRuns = this.transcript.turns.flatMap((t) => t.parts).filter((p) => p.kind === "executable_code").length;
  }

  /** One message to the agent, with the model chosen now (a switch applies from this message on). */
  async send(text: string, model: string, signal: AbortSignal): Promise<void> {
    await this.nameAfter(text);
    const agent = await this.agentFor(model);
    await agent.ask(text, { signal, onEvent: (event) => this.view.handle(event) });
  }

  async runConsole(code: string, signal: AbortSignal): Promise<void> {
    await this.nameAfter(code);
    const { sandbox } = await this.session;
    const turn = { role: "user" as const, parts: [], at: new Date().toISOString() };
    this.transcript.turns.push(turn);
    await recordRun(sandbox, turn, code, `console_${++this.consoleRuns}`, signal, {
      onCode: (part) => this.view.showConsoleRun(part.callId, part.code),
      onOutput: (callId, stream, text) => this.view.handle({ type: "output", callId, stream, text }),
      onImport: (callId, module) => this.view.handle({ type: "import", callId, module }),
      onResult: (part) => this.view.showResult(part.callId, part.result),
      onInput: (callId, prompt) => this.view.askInput(callId, prompt, signal),
    });
  }

  /** Keep the transcript and the model's view of it with the sandbox; resolves once written. */
  async save(): Promise<void> {
    const { sandbox } = await this.session;
    if (sandbox.state === "closed") return;
    const messages = this.agent?.messages ?? this.saved.messages;
    sandbox.setAppData({ transcript: this.transcript, messages } satisfies SavedConversation);
    await sandbox.flush();
  }

  /** An untitled conversation is named after the first thing the user asks or runs. */
  async nameAfter(text: string): Promise<void> {
    const { sandbox, persisted } = await this.session;
    // Saved in the background; a failed save shows through the sandbox's savefailed event.
    if (persisted && sandbox.title === undefined) void sandbox.rename(titleFrom(text)).catch(() => undefined);
  }

  private async agentFor(model: string): Promise<Agent> {
    if (!this.agent) {
      const { sandbox } = await this.session;
      this.transcript.model ??= model;
      this.agent = await Agent.create({
        sandbox,
        model,
        chat: this.chat(),
        streaming: this.streaming(),
        transcript: this.transcript,
        messages: this.saved.messages,
        ...assistOptions(),
        ...codeBlockOptions(),
      });
    }
    this.agent.model = model;
    return this.agent;
  }
}
