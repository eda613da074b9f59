// The conversation: the chat's agent and the console's runs, recorded in one transcript.
import {
  Agent,
  newTranscript,
  recordRun,
  type ChatFn,
  type HttpChatOptions,
  type StreamingMode,
  type Transcript,
} from "wasmbox";
import type { ChatView } from "../ui/chat-view.js";
import type { Session } from "./session.js";

/** The app's backend proxy: the server keeps the API key. */
export const PROXY: HttpChatOptions = { baseUrl: "/api" };

export class Conversation {
  readonly transcript: Transcript = newTranscript(null);
  private agent: Agent | null = null;
  private consoleRuns = 0;

  constructor(
    private readonly session: Promise<Session>,
    private readonly view: ChatView,
    private readonly streaming: () => Record<string, StreamingMode>,
    /** The proxy, or on a static host the user's endpoint (read when the first message is sent). */
    private readonly chat: () => HttpChatOptions | ChatFn = () => PROXY,
  ) {}

  /** One message to the agent, with the model chosen now (a switch applies from this message on). */
  async send(text: string, model: string, signal: AbortSignal): Promise<void> {
    const agent = await this.agentFor(model);
    await agent.ask(text, { signal, onEvent: (event) => this.view.handle(event) });
  }

  async runConsole(code: string, signal: AbortSignal): Promise<void> {
    const { sandbox } = await this.session;
    const turn = { role: "user" as const, parts: [], at: new Date().toISOString() };
    this.transcript.turns.push(turn);
    await recordRun(sandbox, turn, code, `console_${++this.consoleRuns}`, signal, {
      onCode: (part) => this.view.showConsoleRun(part.callId, part.code),
      onOutput: (callId, stream, text) => this.view.handle({ type: "output", callId, stream, text }),
      onResult: (part) => this.view.showResult(part.callId, part.result),
    });
  }

  private async agentFor(model: string): Promise<Agent> {
    if (!this.agent) {
      const { sandbox } = await this.session;
      this.transcript.model = model;
      this.agent = await Agent.create({
        sandbox,
        model,
        chat: this.chat(),
        streaming: this.streaming(),
        transcript: this.transcript,
      });
    }
    this.agent.model = model;
    return this.agent;
  }
}
