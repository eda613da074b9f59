// `wasmbox ask`'s side of the page: the SDK's Agent on one of this page's sandboxes. Its model
// requests are made by the Python client (the `openai` package there, so the key never enters the
// page), and what it does reaches Python as it happens, all through the `wasmboxAgent` binding:
//   wasmboxAgent(token, "chat-start", request) → a stream id
//   wasmboxAgent(token, "chat-next", id) → { deltas, done, error }: what arrived since the last call
//   wasmboxAgent(token, "chat-cancel", id)
//   wasmboxAgent(token, "event", event), and "end" once the turn is over (after every event).
import { Agent, ChatError, Sandbox } from "/sdk/wasmbox.js";

/** The turns being answered, by token: `stop(token)` aborts one. */
const running = new Map();

const send = (token, kind, payload) => window.wasmboxAgent(token, kind, payload);

/** A ChatFn whose requests Python makes: deltas are pulled in batches until the reply is done. */
function chatThroughPython(token) {
  return async function* chat(request, signal) {
    signal.throwIfAborted();
    const id = await send(token, "chat-start", request);
    const cancel = () => void send(token, "chat-cancel", id);
    signal.addEventListener("abort", cancel, { once: true });
    let over = false;
    try {
      while (!over) {
        const { deltas, done, error } = await send(token, "chat-next", id);
        signal.throwIfAborted();
        yield* deltas;
        over = done || error !== null;
        if (error) throw new ChatError(error.type, error.message, error.status, error.code, error.retryAfterS);
      }
    } finally {
      signal.removeEventListener("abort", cancel);
      if (!over) cancel(); // the loop stopped reading: Python closes the request
    }
  };
}

/** An event as plain data: `turn` events hold the live transcript, which Python does not need. */
function plain(event) {
  switch (event.type) {
    case "turn":
      return null;
    case "code":
      return { type: "code", callId: event.part.callId, code: event.part.code, form: event.form };
    case "result": {
      const { callId, outcome, output, result } = event.part;
      return { type: "result", callId, outcome, output, result };
    }
    default:
      return event;
  }
}

function failure(error) {
  if (error?.name !== "ChatError") return null;
  const { type, message, hint, status, code } = error;
  return { type, message, hint, status, code };
}

/** Answer `question` with a new Agent on sandbox `sandboxId`; resolves when the turn is over. */
export async function ask(token, sandboxId, { question, model, maxSteps }) {
  const sandbox = Sandbox.get(sandboxId);
  if (!sandbox) throw new Error(`no open sandbox with id ${sandboxId}`);
  const controller = new AbortController();
  running.set(token, controller);
  const outcome = { finish: "error", error: null, ungrounded: [] };
  try {
    const agent = await Agent.create({ sandbox, model, maxSteps, chat: chatThroughPython(token) });
    const onEvent = (event) => {
      const data = plain(event);
      if (data) void send(token, "event", data);
    };
    const turn = await agent.ask(question, { signal: controller.signal, onEvent });
    outcome.finish = turn.finish;
    // Numbers the answer states that no run computed (the Agent's grounding check), when it has one.
    outcome.ungrounded = Array.isArray(turn.ungrounded) ? turn.ungrounded : [];
  } catch (error) {
    if (controller.signal.aborted) outcome.finish = "stopped";
    else if ((outcome.error = failure(error)) === null) throw error;
  } finally {
    running.delete(token);
    void send(token, "end", outcome);
  }
  return outcome;
}

export function stop(token) {
  running.get(token)?.abort();
}
