// Exposes localModel + Agent to the tests, with helpers that keep results JSON-friendly.
import { Agent, Sandbox, localModel } from "../sdk/wasmbox.js";

const state = { model: null, progress: [], agent: null, sandbox: null };

const errorOf = (e) => ({ name: e?.name, type: e?.type, message: String(e?.message ?? e), hint: e?.hint ?? null });

window.localTest = {
  state,
  /** Create (or replace) the page's model; returns its info once loaded, or the error. */
  async load(options) {
    await state.model?.close();
    state.progress = [];
    const { file, ...rest } = options;
    state.model = localModel({
      ...rest,
      ...(file ? { file: new File([await (await fetch(file)).blob()], file.split("/").pop()) } : {}),
      onProgress: (event) => state.progress.push({ ...event, at: performance.now() }),
    });
    try {
      return { info: await state.model.load() };
    } catch (e) {
      return { error: errorOf(e) };
    }
  },
  /** One streamed request straight to the chat function; `abortAfterTokens` cancels mid-generation. */
  async chat(messages, { abortAfterTokens = 0 } = {}) {
    const controller = new AbortController();
    const deltas = [];
    const started = performance.now();
    try {
      for await (const delta of state.model({ model: "local", messages, stream: true }, controller.signal)) {
        deltas.push(delta);
        const tokens = deltas.filter((d) => d.content).length;
        if (abortAfterTokens && tokens >= abortAfterTokens) controller.abort();
      }
      return { deltas, timings: state.model.lastTimings, ms: performance.now() - started };
    } catch (e) {
      return { deltas, error: errorOf(e), ms: performance.now() - started };
    }
  },
  /** One agent turn with the page's model and a sandbox (made once). */
  async ask(text, { abortAfterTokens = 0 } = {}) {
    state.sandbox ??= await Sandbox.create({ timeoutMs: 30_000 });
    state.agent ??= await Agent.create({ sandbox: state.sandbox, model: "local", chat: state.model, maxSteps: 3 });
    const controller = new AbortController();
    const events = [];
    let texts = 0;
    try {
      const turn = await state.agent.ask(text, {
        signal: controller.signal,
        onEvent: (event) => {
          events.push(event.type === "turn" ? { type: "turn" } : event);
          if (event.type === "text" && abortAfterTokens && ++texts >= abortAfterTokens) controller.abort();
        },
      });
      return { turn, events, timings: state.model.lastTimings };
    } catch (e) {
      return { events, error: errorOf(e) };
    }
  },
};
window.localReady = true;
