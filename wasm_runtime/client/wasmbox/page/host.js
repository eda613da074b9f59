// The Python client's side of the page: the real SDK, with bytes crossing as base64 strings
// (Playwright carries JSON) and streamed output handed to the binding the client exposes.
import { Sandbox } from "/sdk/wasmbox.js";

const fromBase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

function toBase64(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function sandbox(id) {
  const found = Sandbox.get(id);
  if (!found) throw new Error(`no open sandbox with id ${id}`);
  return found;
}

const NO_PERSISTENCE = "this SDK has no persisted sessions (Sandbox.resume)";
const persistence = () => typeof Sandbox.resume === "function";

const stream = (token, name) => (text) => window.wasmboxStream(token, name, text);

// The Python client's tools (wasmbox/tools.py): each handler calls back into the client's process.
function clientTools(token, specs) {
  const call = async (name, args) => {
    const answer = JSON.parse(await window.wasmboxTool(token, name, JSON.stringify(args)));
    if (!answer.ok) throw new Error(answer.error);
    return answer.value;
  };
  return Object.fromEntries(
    specs.map(({ name, description, parameters }) => [
      name,
      { description, parameters, handler: (args) => call(name, args) },
    ]),
  );
}

// `{ tools }` for the SDK from the client's grant (`{}`: none); a resume grants them again.
const granted = ({ toolSpecs, toolToken } = {}) => (toolSpecs ? { tools: clientTools(toolToken, toolSpecs) } : {});

window.wasmboxHost = {
  async create(options, grant) {
    // An SDK without persisted sessions would ignore `persist`: refuse instead of pretending.
    if (options.persist !== undefined && !persistence()) throw new Error(NO_PERSISTENCE);
    return (await Sandbox.create({ ...options, ...granted(grant) })).id;
  },
  async resume(id, grant) {
    if (!persistence()) throw new Error(NO_PERSISTENCE);
    return (await Sandbox.resume(id, granted(grant))).id;
  },
  // A named session: its saved sandbox again, or a new persisted one when there is none (never
  // saved, deleted or expired: `replaced` says so). Any other failure (a lock, storage) is thrown.
  async openNamed(savedId, options, grant) {
    if (!persistence()) throw new Error(NO_PERSISTENCE);
    const tools = granted(grant);
    if (savedId) {
      try {
        const again = await Sandbox.resume(savedId, tools);
        const notRestored = again.resumeReport?.notRestored ?? [];
        return { id: again.id, resumed: true, replaced: false, notRestored };
      } catch (error) {
        if (error?.name !== "SessionNotFound") throw error;
      }
    }
    const created = await Sandbox.create({ ...options, ...tools, persist: true });
    return { id: created.id, resumed: false, replaced: Boolean(savedId), notRestored: [] };
  },
  delete: (id) => Sandbox.delete(id),
  execute(id, code, { files = [], token = null, ...options }) {
    return sandbox(id).execute(code, {
      ...options,
      files: files.map(({ path, data }) => ({ path, data: fromBase64(data) })),
      onStdout: token === null ? undefined : stream(token, "stdout"),
      onStderr: token === null ? undefined : stream(token, "stderr"),
    });
  },
  writeFile: (id, path, data) => sandbox(id).writeFile(path, fromBase64(data)),
  readFile: async (id, path) => toBase64(await sandbox(id).readFile(path)),
  listFiles: (id) => sandbox(id).listFiles(),
  environment: (id) => sandbox(id).environment(),
  close: (id) => Sandbox.get(id)?.close(),
  list: async () => {
    await Sandbox.loadSaved();
    return Sandbox.list();
  },
  // `wasmbox ask` (page/agent.js, loaded on first use: not on a start's path).
  agentAsk: async (token, id, options) => (await import("./agent.js")).ask(token, id, options),
  agentStop: async (token) => (await import("./agent.js")).stop(token),
};
// A program drives this page, often with runs back to back: the spare that replaces a claimed one
// boots in a pause, not between two of its runs.
Sandbox.warmup({ refill: "quiet" });
window.wasmboxReady = true;
