// The wasmbox app: a chat with a code-executing agent and a Python console, sharing one sandbox.
import { streamChat } from "./api/chat-stream.js";
import { ChatError } from "./api/chat-types.js";
import { fetchConfig, type AppConfig } from "./api/config.js";
import { Agent } from "./agent/loop.js";
import { newTranscript, startTurn } from "./agent/transcript.js";
import { outputText } from "./agent/model-result.js";
import { Session } from "./app/session.js";
import { toNotebook } from "./export/notebook.js";
import { ChatView } from "./ui/chat-view.js";
import { byId, h } from "./ui/dom.js";
import { saveText } from "./ui/files.js";
import { StatusBar } from "./ui/status.js";

const status = new StatusBar(byId("sandbox-state"), byId("activity"), byId<HTMLProgressElement>("boot-progress"));
const transcriptRoot = byId("transcript");
const messageInput = byId<HTMLTextAreaElement>("message");
const codeInput = byId<HTMLTextAreaElement>("code");
const stopButton = byId<HTMLButtonElement>("stop");
const modelSelect = byId<HTMLSelectElement>("model");
const filesList = byId<HTMLUListElement>("file-list");

let session: Session | null = null;
const sessionReady = Session.start((progress) => status.showStartProgress(progress)).then((s) => (session = s));
const view = new ChatView(transcriptRoot, (path) => void sessionReady.then((s) => s.download(path)));
const transcript = newTranscript(null);
let agent: Agent | null = null;
let current: AbortController | null = null;
let consoleRuns = 0;

function watchSandbox(): void {
  status.showSandbox(session?.state ?? "starting");
  window.setTimeout(watchSandbox, 250);
}

async function refreshFiles(): Promise<void> {
  const files = await (await sessionReady).listFiles();
  filesList.replaceChildren(
    ...files.map((file) => {
      const button = h("button", { type: "button", class: "link" }, `⬇ ${file.path}`);
      button.addEventListener("click", () => void session?.download(file.path));
      return h("li", {}, button, ` ${file.size} bytes`);
    }),
  );
}

/** Run `work` as the one current activity: Stop (or Esc) aborts it. */
async function activity(label: string, work: (signal: AbortSignal) => Promise<void>): Promise<void> {
  if (current) return;
  current = new AbortController();
  stopButton.disabled = false;
  const done = status.running(label);
  try {
    await work(current.signal);
  } catch (error) {
    if (current.signal.aborted) view.note("Stopped.");
    else view.note(error instanceof ChatError ? `The model request failed: ${error.message}` : String(error), "error");
  } finally {
    done();
    current = null;
    stopButton.disabled = true;
    // A count of finished activities lets scripts (and tests) wait for "this one is done".
    document.body.dataset.finished = String(Number(document.body.dataset.finished ?? 0) + 1);
    void refreshFiles();
  }
}

async function sendMessage(): Promise<void> {
  const text = messageInput.value.trim();
  if (!text || current) return;
  messageInput.value = "";
  await activity("Thinking", async (signal) => {
    const s = await sessionReady;
    const system = await s.systemPrompt();
    if (!agent) {
      transcript.model = modelSelect.value;
      agent = new Agent(system, transcript, {
        model: modelSelect.value,
        chat: streamChat,
        sandbox: s,
        onEvent: (event) => view.handle(event),
      });
    } else {
      agent.updateSystemPrompt(system);
    }
    await agent.send(text, signal);
  });
}

async function runConsole(): Promise<void> {
  const code = codeInput.value;
  if (!code.trim() || current) return;
  await activity("Running", async (signal) => {
    const s = await sessionReady;
    const callId = `console_${++consoleRuns}`;
    const turn = startTurn(transcript, "user");
    turn.parts.push({ kind: "executable_code", callId, language: "python", code });
    view.showConsoleRun(callId, code);
    const result = await s.execute(code, {
      signal,
      onStdout: (text) => view.handle({ type: "output", callId, stream: "stdout", text }),
      onStderr: (text) => view.handle({ type: "output", callId, stream: "stderr", text }),
    });
    turn.parts.push({ kind: "code_execution_result", callId, outcome: result.outcome, output: outputText(result), result });
    view.showResult(callId, result);
  });
}

function showMode(mode: "chat" | "console"): void {
  for (const name of ["chat", "console"] as const) {
    byId(`${name}-form`).hidden = name !== mode;
    byId(`${name}-tab`).setAttribute("aria-selected", String(name === mode));
  }
  (mode === "chat" ? messageInput : codeInput).focus();
}

function applyConfig(config: AppConfig): void {
  modelSelect.replaceChildren(...config.models.map((model) => h("option", { value: model }, model)));
  modelSelect.disabled = !config.llmConfigured;
  byId("chat-tab").hidden = !config.llmConfigured;
  const setup = byId("setup-note");
  setup.hidden = config.llmConfigured;
  setup.textContent = config.howToConfigure ?? "";
  showMode(config.llmConfigured ? "chat" : "console");
}

async function uploadFiles(files: Iterable<File>): Promise<void> {
  const s = await sessionReady;
  for (const file of files) {
    try {
      view.note(`Uploaded ${await s.upload(file)} to the sandbox.`);
    } catch (error) {
      view.note(String(error instanceof Error ? error.message : error), "error");
    }
  }
  await refreshFiles();
}

function bindEvents(): void {
  byId("chat-form").addEventListener("submit", (e) => (e.preventDefault(), void sendMessage()));
  byId("console-form").addEventListener("submit", (e) => (e.preventDefault(), void runConsole()));
  messageInput.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || e.shiftKey || e.isComposing) return;
    e.preventDefault();
    void sendMessage();
  });
  codeInput.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || !(e.ctrlKey || e.metaKey)) return;
    e.preventDefault();
    void runConsole();
  });
  document.addEventListener("keydown", (e) => e.key === "Escape" && current?.abort());
  stopButton.addEventListener("click", () => current?.abort());
  byId("chat-tab").addEventListener("click", () => showMode("chat"));
  byId("console-tab").addEventListener("click", () => showMode("console"));
  const picker = byId<HTMLInputElement>("upload");
  picker.addEventListener("change", () => void uploadFiles(picker.files ?? []).then(() => (picker.value = "")));
  document.addEventListener("dragover", (e) => e.preventDefault());
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    if (e.dataTransfer?.files.length) void uploadFiles(e.dataTransfer.files);
  });
  byId("export-json").addEventListener("click", () =>
    saveText(JSON.stringify(transcript, null, 1), "wasmbox-transcript.json", "application/json"),
  );
  byId("export-notebook").addEventListener("click", () =>
    saveText(JSON.stringify(toNotebook(transcript), null, 1), "wasmbox-session.ipynb", "application/x-ipynb+json"),
  );
}

bindEvents();
performance.mark("wasmbox:input-ready");
watchSandbox();
sessionReady.then(
  () => (performance.mark("wasmbox:sandbox-ready"), refreshFiles()),
  (error) => view.note(`The sandbox could not start: ${error}`, "error"),
);
fetchConfig().then(applyConfig, (error) => view.note(`Could not load the configuration: ${error}`, "error"));
