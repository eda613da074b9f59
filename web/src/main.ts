// The wasmbox app: a chat with a code-executing agent and a Python console, sharing one sandbox.
// This file only wires the components to the page.
import type { ChatFn, HttpChatOptions, StateChangeEvent, StreamingMode } from "wasmbox";
import { endpointConfig, fetchConfig, type AppConfig } from "./api/config.js";
import { directChat } from "./api/direct-chat.js";
import { applyConnectPolicy, loadEndpoint } from "./api/endpoint.js";
import { Activity } from "./app/activity.js";
import { Conversation, PROXY } from "./app/conversation.js";
import { Session } from "./app/session.js";
import { toNotebook } from "./export/notebook.js";
import { ChatView } from "./ui/chat-view.js";
import { byId, h } from "./ui/dom.js";
import { showEndpointForm } from "./ui/endpoint-form.js";
import { FileList } from "./ui/file-list.js";
import { saveText } from "./ui/files.js";
import { StatusBar } from "./ui/status.js";
import { showUpdateNotice } from "./sw/notice.js";
import { registerOffline } from "./sw/register.js";

function start(): void {
  // Before anything fetches: the page may reach its own files and the user's endpoint, nothing else.
  const endpoint = loadEndpoint();
  applyConnectPolicy(endpoint);
  const status = new StatusBar(byId("sandbox-state"), byId("activity"), byId<HTMLProgressElement>("boot-progress"));
  const log = byId("transcript");
  const messageInput = byId<HTMLTextAreaElement>("message");
  const codeInput = byId<HTMLTextAreaElement>("code");
  const modelSelect = byId<HTMLSelectElement>("model");

  status.showSandbox("starting");
  const session = Session.start((progress) => status.showStartProgress(progress));
  const download = (path: string): void => void session.then((s) => s.download(path));
  const view = new ChatView(log, download);
  const files = new FileList(byId<HTMLUListElement>("file-list"), download);
  const refreshFiles = (): Promise<void> => session.then(async (s) => files.show(await s.listFiles()));
  let streaming: Record<string, StreamingMode> = {};
  let chat: HttpChatOptions | ChatFn = PROXY;
  const conversation = new Conversation(session, view, () => streaming, () => chat);
  const activity = new Activity(status, byId<HTMLButtonElement>("stop"), log, view, () => void refreshFiles());

  const sendMessage = (): void => {
    const text = messageInput.value.trim();
    if (!text || activity.running) return;
    messageInput.value = "";
    const model = modelSelect.value;
    void activity.run("Thinking", (signal) => conversation.send(text, model, signal));
  };

  const runConsole = (): void => {
    const code = codeInput.value;
    if (!code.trim() || activity.running) return;
    void activity.run("Running", (signal) => conversation.runConsole(code, signal));
  };

  const showMode = (mode: "chat" | "console"): void => {
    for (const name of ["chat", "console"] as const) {
      byId(`${name}-form`).hidden = name !== mode;
      byId(`${name}-tab`).setAttribute("aria-selected", String(name === mode));
    }
    (mode === "chat" ? messageInput : codeInput).focus();
  };

  const applyConfig = (served: AppConfig): void => {
    let config = served;
    if (!served.server) {
      // A static host: the chat goes from this page to the user's endpoint, if one was entered.
      showEndpointForm(endpoint);
      if (endpoint) {
        config = endpointConfig(endpoint.model);
        chat = directChat(endpoint);
      }
    }
    streaming = config.streaming;
    modelSelect.replaceChildren(...config.models.map((model) => h("option", { value: model }, model)));
    modelSelect.disabled = !config.llmConfigured;
    byId("chat-tab").hidden = !config.llmConfigured;
    const setup = byId("setup-note");
    setup.hidden = config.llmConfigured;
    setup.textContent = config.howToConfigure ?? "";
    showMode(config.llmConfigured ? "chat" : "console");
  };

  const uploadFiles = async (chosen: Iterable<File>): Promise<void> => {
    const s = await session;
    for (const file of chosen) {
      try {
        view.note(`Uploaded ${await s.upload(file)} to the sandbox.`);
      } catch (error) {
        view.note(String(error instanceof Error ? error.message : error), "error");
      }
    }
    await refreshFiles();
  };

  const onSubmit = (action: () => void) => (e: Event) => {
    e.preventDefault();
    action();
  };
  byId("chat-form").addEventListener("submit", onSubmit(sendMessage));
  byId("console-form").addEventListener("submit", onSubmit(runConsole));
  messageInput.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) onSubmit(sendMessage)(e);
  });
  codeInput.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) onSubmit(runConsole)(e);
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") activity.stop();
  });
  byId("chat-tab").addEventListener("click", () => showMode("chat"));
  byId("console-tab").addEventListener("click", () => showMode("console"));
  const picker = byId<HTMLInputElement>("upload");
  picker.addEventListener("change", () => void uploadFiles(picker.files ?? []).then(() => (picker.value = "")));
  document.addEventListener("dragover", (e) => e.preventDefault());
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    if (e.dataTransfer?.files.length) void uploadFiles(e.dataTransfer.files);
  });
  const { transcript } = conversation;
  byId("export-json").addEventListener("click", () =>
    saveText(JSON.stringify(transcript, null, 1), "wasmbox-transcript.json", "application/json"),
  );
  byId("export-notebook").addEventListener("click", () =>
    saveText(JSON.stringify(toNotebook(transcript), null, 1), "wasmbox-session.ipynb", "application/x-ipynb+json"),
  );

  performance.mark("wasmbox:input-ready");
  session.then(
    ({ sandbox }) => {
      status.showSandbox(sandbox.state);
      sandbox.addEventListener("statechange", (e) => status.showSandbox((e as StateChangeEvent).detail.state));
      performance.mark("wasmbox:sandbox-ready");
      return refreshFiles();
    },
    (error) => view.note(`The sandbox could not start: ${error}`, "error"),
  );
  fetchConfig().then(applyConfig, (error) => view.note(`Could not load the configuration: ${error}`, "error"));
}

start();
// app.js is at app/; the service worker at the top, so its scope covers the app and the examples.
registerOffline(new URL("../sw.js", import.meta.url), showUpdateNotice);
