// The wasmbox app: a chat with a code-executing agent and a Python console, sharing one sandbox.
// This file only wires the components to the page.
import {
  httpChat,
  type ChatFn,
  type HttpChatOptions,
  type StateChangeEvent,
  type StreamingMode,
  type Transcript,
} from "wasmbox";
import { endpointConfig, fetchConfig, type AppConfig } from "./api/config.js";
import { directChat } from "./api/direct-chat.js";
import { fetchShippedModel } from "./api/shipped-model.js";
import { applyConnectPolicy, loadEndpoint } from "./api/endpoint.js";
import { Activity } from "./app/activity.js";
import { PROXY, type Conversation } from "./app/conversation.js";
import type { Session } from "./app/session.js";
import { runAll } from "./app/run-all.js";
import { Workspace } from "./app/workspace.js";
import { toNotebook } from "./export/notebook.js";
import { isDocument, readDocument } from "./notebook/open.js";
import { ChatView } from "./ui/chat-view.js";
import { ConversationList } from "./ui/conversation-list.js";
import { byId, h } from "./ui/dom.js";
import { showEndpointForm } from "./ui/endpoint-form.js";
import { FileList } from "./ui/file-list.js";
import { LocalModelPicker, PICKED } from "./ui/local-model-picker.js";
import { saveText } from "./ui/files.js";
import { ReplayMarks } from "./ui/replay-marks.js";
import { StatusBar } from "./ui/status.js";
import { modelWhere, SAMPLE_FILE, SAMPLE_URL, Welcome, type Example } from "./ui/welcome.js";
import { showUpdateNotice } from "./sw/notice.js";
import { registerOffline } from "./sw/register.js";

/** Resolves once the workspace's sandbox has started (or failed to). */
function start(): Promise<void> {
  // Before anything fetches: the page may reach its own files and the user's endpoint, nothing else.
  const endpoint = loadEndpoint();
  applyConnectPolicy(endpoint);
  const status = new StatusBar(byId("sandbox-state"), byId("activity"), byId<HTMLProgressElement>("boot-progress"));
  const log = byId("transcript");
  const messageInput = byId<HTMLTextAreaElement>("message");
  const codeInput = byId<HTMLTextAreaElement>("code");
  const modelSelect = byId<HTMLSelectElement>("model");

  let streaming: Record<string, StreamingMode> = {};
  let chat: HttpChatOptions | ChatFn = PROXY;
  let localModels: LocalModelPicker | null = null;
  /**
   * Each request goes where its model is: in this page ("On this device") or to a server. A
   * conversation's agent keeps one chat function, and the picker may change between messages.
   */
  const routed: ChatFn = (request, signal) => {
    const target = localModels?.chatFor(request.model) ?? chat;
    return (typeof target === "function" ? target : httpChat(target))(request, signal);
  };
  let session: Promise<Session> = new Promise(() => undefined);
  const download = (path: string): void => void session.then((s) => s.download(path));
  const view = new ChatView(log, download);
  const files = new FileList(byId<HTMLUListElement>("file-list"), download);
  // A refused listing (over its cap) is shown, never left as an unhandled rejection.
  const refreshFiles = (): Promise<void> =>
    session
      .then(async (s) => files.show(await s.listFiles()))
      .catch((e: unknown) => files.showError(e instanceof Error ? e.message : String(e)));
  const workspace = new Workspace(
    view,
    () => streaming,
    () => routed,
    {
      onProgress: (progress) => status.showStartProgress(progress),
      opening: () => {
        session = new Promise(() => undefined); // the one left is closed
        status.showSandbox("starting");
        files.show([]);
      },
      opened: (opened) => {
        session = Promise.resolve(opened);
        const { sandbox } = opened;
        status.showSandbox(sandbox.state);
        sandbox.addEventListener("statechange", (e) => status.showSandbox((e as StateChangeEvent).detail.state));
        void refreshFiles();
      },
      listChanged: () => conversations.show(workspace.entries()),
      note: (text, kind) => view.note(text, kind),
    },
  );
  const activity = new Activity(status, byId<HTMLButtonElement>("stop"), log, view, () => {
    void refreshFiles();
    return workspace.saved();
  });
  const conversation = (): Promise<Conversation> => workspace.current ?? workspace.open(null);
  /** Switching waits for the current activity: Stop it first. */
  const whenIdle = (action: () => unknown): void => {
    if (activity.running) view.note("Stop the current run before switching conversations.", "error");
    else void action();
  };
  const conversations = new ConversationList(byId<HTMLUListElement>("conversation-list"), {
    open: (id) => whenIdle(() => workspace.open(id)),
    rename: (id, title) => void workspace.rename(id, title),
    remove: (id) => whenIdle(() => workspace.remove(id)),
  });
  byId("new-chat").addEventListener("click", () => whenIdle(() => workspace.open(null)));

  const sendMessage = (): void => {
    const text = messageInput.value.trim();
    if (!text || activity.running) return;
    const model = modelSelect.value;
    if (model === PICKED && !localModels?.chatFor(model)) {
      view.note("Choose a .gguf model file first (or drop one on the page).", "error");
      byId<HTMLInputElement>("local-model-file").click();
      return;
    }
    messageInput.value = "";
    void activity.run("Thinking", async (signal) => (await conversation()).send(text, model, signal));
  };

  const runConsole = (): void => {
    const code = codeInput.value;
    if (!code.trim() || activity.running) return;
    void activity.run("Running", async (signal) => (await conversation()).runConsole(code, signal));
  };

  const showMode = (mode: "chat" | "console"): void => {
    for (const name of ["chat", "console"] as const) {
      byId(`${name}-form`).hidden = name !== mode;
      byId(`${name}-tab`).setAttribute("aria-selected", String(name === mode));
    }
    (mode === "chat" ? messageInput : codeInput).focus();
  };

  let llmConfigured = false;
  const tryExample = async (example: Example): Promise<void> => {
    if (activity.running) return;
    if (!(await hasFile(SAMPLE_FILE))) {
      const response = await fetch(new URL(SAMPLE_URL, import.meta.url));
      if (!response.ok) return view.note(`The sample data could not be loaded (${response.status}).`, "error");
      await uploadFiles([new File([await response.blob()], SAMPLE_FILE, { type: "text/csv" })]);
    }
    if (llmConfigured) {
      messageInput.value = example.question;
      sendMessage();
    } else {
      showMode("console");
      codeInput.value = example.code;
      runConsole();
    }
  };
  const hasFile = async (path: string): Promise<boolean> =>
    (await (await session).listFiles()).some((file) => file.path === path);
  const welcome = new Welcome({ choose: (example) => void tryExample(example) });
  view.setWelcome(welcome.element);

  const applyConfig = (served: AppConfig, picker: LocalModelPicker): void => {
    localModels = picker;
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
    // A shipped model answers in the page: the chat works with no server and no endpoint.
    const canChat = config.llmConfigured || picker.hasShipped;
    const remote = config.llmConfigured ? config.models.map((model) => h("option", { value: model }, model)) : [];
    modelSelect.replaceChildren(...remote, ...picker.options());
    modelSelect.disabled = !canChat;
    byId("chat-tab").hidden = !canChat;
    const setup = byId("setup-note");
    setup.hidden = canChat;
    setup.textContent = config.howToConfigure ?? "";
    showMode(canChat ? "chat" : "console");
    llmConfigured = canChat;
    const direct = !served.server && endpoint ? new URL(endpoint.baseUrl).host : undefined;
    const local = !config.llmConfigured && picker.hasShipped;
    welcome.show(modelWhere({ server: served.server, llmConfigured: canChat, endpoint: direct, local }));
  };

  const uploadFiles = async (chosen: Iterable<File>): Promise<void> => {
    const s = await session;
    for (const file of chosen) {
      try {
        const name = await s.upload(file);
        view.note(`Uploaded ${name} to the sandbox.`);
        await (await conversation()).nameAfter(name);
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
  /** A notebook or transcript becomes a new conversation; a file that cannot be read changes nothing. */
  const openDocument = async (file: File): Promise<void> => {
    if (activity.running) return view.note("Stop the current run before opening a notebook.", "error");
    let opened;
    try {
      opened = await readDocument(file);
    } catch (error) {
      return view.note(error instanceof Error ? error.message : String(error), "error");
    }
    const { title, transcript } = opened;
    try {
      await workspace.openImported({ transcript, messages: [] }, title);
    } catch (error) {
      return view.note(`${title} could not be opened: ${error instanceof Error ? error.message : error}`, "error");
    }
    const cells = transcript.turns.flatMap((t) => t.parts).filter((p) => p.kind === "executable_code").length;
    const counted = `${cells} code cell${cells === 1 ? "" : "s"}`;
    view.note(`Opened ${title}: ${counted}, shown with their recorded outputs. “Run all” runs them again.`);
  };
  const openPicker = byId<HTMLInputElement>("open-notebook");
  openPicker.addEventListener("change", () => {
    const [file] = openPicker.files ?? [];
    openPicker.value = "";
    if (file) void openDocument(file);
  });
  const marks = new ReplayMarks(log, download);
  byId("run-all").addEventListener("click", () => {
    if (activity.running) return;
    void activity.run("Running all", (signal) => runAll({ workspace, marks, note: (t, k) => view.note(t, k) }, signal));
  });
  document.addEventListener("dragover", (e) => e.preventDefault());
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    const dropped = [...(e.dataTransfer?.files ?? [])];
    // A dropped model becomes "On this device"; other files go to the sandbox.
    const model = dropped.find((f) => f.name.toLowerCase().endsWith(".gguf"));
    if (model && localModels && !modelSelect.disabled) localModels.useFile(model);
    const others = dropped.filter((f) => f !== model || !localModels || modelSelect.disabled);
    // A notebook or our transcript export is opened (the first one dropped); data files are uploaded.
    void Promise.all(others.map(isDocument)).then((documents) => {
      const opened = others.find((_, i) => documents[i]);
      const uploads = others.filter((_, i) => !documents[i]);
      if (uploads.length) void uploadFiles(uploads);
      if (opened) void openDocument(opened);
    });
  });
  // The conversation shown, restored history included.
  const exportAs = (save: (transcript: Transcript) => void) => () =>
    void conversation().then((c) => save(c.transcript));
  byId("export-json").addEventListener(
    "click",
    exportAs((t) => saveText(JSON.stringify(t, null, 1), "wasmbox-transcript.json", "application/json")),
  );
  byId("export-notebook").addEventListener(
    "click",
    exportAs((t) =>
      saveText(JSON.stringify(toNotebook(t), null, 1), "wasmbox-session.ipynb", "application/x-ipynb+json"),
    ),
  );

  performance.mark("wasmbox:input-ready");
  const started = workspace.start().then(
    () => void performance.mark("wasmbox:sandbox-ready"),
    (error) => {
      status.showStartFailure(String(error instanceof Error ? error.message : error));
      view.note(`The sandbox could not start: ${error}`, "error");
    },
  );
  const pickerReady = fetchShippedModel().then(
    (shipped) => new LocalModelPicker(modelSelect, byId("local-model-file"), byId("local-model-status"), shipped),
  );
  Promise.all([fetchConfig(), pickerReady]).then(
    ([config, models]) => applyConfig(config, models),
    (error) => view.note(`Could not load the configuration: ${error}`, "error"),
  );
  return started;
}

// app.js is at app/; the service worker at the top, so its scope covers the app and the examples.
// Registered once the sandbox is up: its precache must not compete with the sandbox's start.
void start().then(() => registerOffline(new URL("../sw.js", import.meta.url), showUpdateNotice));
