// Runtime files come from the host page. This worker lives in an opaque origin whose HTTP cache
// is a new partition on every visit, so fetching /runtime/ directly would download the whole
// runtime again each time; the host page's cache persists. Pyodide fetches its wasm, standard
// library, lock file and packages with the global `fetch`, so that is where the files are routed.
import { mimeOf } from "../protocol/mime.js";
import {
  BOOT_FILES,
  RUNTIME_FILE_NAME,
  type RuntimeFilePush,
  type RuntimeFileReply,
  type RuntimeFileRequest,
} from "../protocol/types.js";
import { bootStep } from "./boot-steps.js";
import { compilingResponse } from "./wasm-precompile.js";

/** What the host sends for a file: its bytes, or the Blob of a file it had stored (read here). */
type HostData = Uint8Array | Blob;

const toBytes = async (data: HostData): Promise<Uint8Array> =>
  data instanceof Blob ? new Uint8Array(await data.arrayBuffer()) : data;

/** A runtime file's bytes, from the host page when it can help, else from the network. */
export type RuntimeFileBytes = (file: string) => Promise<Uint8Array>;

/**
 * The same route, also giving a file as the host sent it: a Blob of a file the host page had
 * stored, whose parts can be read (and compiled) before the whole file is.
 */
export type RuntimeFiles = RuntimeFileBytes & { data(file: string): Promise<Uint8Array | Blob> };

/**
 * Route the worker's `fetch` of runtime files to the host page, and return the same route for
 * callers that want the bytes themselves: reading a large file such as the start-up snapshot back
 * out of a `Response` would copy it once more.
 */
export function routeRuntimeFetches(
  runtimeUrl: string,
  port: MessagePort,
  pushedFiles: readonly string[],
): RuntimeFiles {
  const waiting = new Map<number, (reply: RuntimeFileReply) => void>();
  let nextId = 1;
  // The files the host pushes without being asked, through the frame (they may be queued for this
  // worker already); the first request for each takes it.
  const pushes = new Map<string, (push: RuntimeFilePush) => void>();
  const pushed = new Map(
    pushedFiles.map((file) => {
      const bytes = new Promise<HostData>((resolve, reject) =>
        pushes.set(file, ({ data, error }) => (data ? resolve(data) : reject(new Error(error ?? file)))),
      );
      bytes.catch(() => undefined);
      return [file, bytes] as const;
    }),
  );
  self.addEventListener("message", (event: MessageEvent) => {
    const push = event.data as Partial<RuntimeFilePush> | null;
    if (push?.type !== "runtime-file-push" || typeof push.file !== "string") return;
    if (push.data) bootStep(`received ${push.file}`);
    pushes.get(push.file)?.(push as RuntimeFilePush);
    pushes.delete(push.file);
  });
  port.addEventListener("message", (event: MessageEvent) => {
    const reply = event.data as Partial<RuntimeFileReply> | null;
    if (reply?.type !== "runtime-file" || typeof reply.fetchId !== "number") return;
    waiting.get(reply.fetchId)?.(reply as RuntimeFileReply);
    waiting.delete(reply.fetchId);
  });
  port.start();

  const fromHost = (file: string): Promise<HostData> =>
    new Promise((resolve, reject) => {
      const fetchId = nextId++;
      waiting.set(fetchId, ({ data, error }) => {
        if (data && BOOT_FILES.includes(file)) bootStep(`received ${file}`);
        return data ? resolve(data) : reject(new Error(error ?? file));
      });
      port.postMessage({ type: "fetch-runtime", fetchId, file } satisfies RuntimeFileRequest);
    });

  const hostData = (file: string): Promise<HostData> => {
    const bytes = pushed.get(file);
    pushed.delete(file);
    return bytes ?? fromHost(file);
  };

  const direct = self.fetch.bind(self);
  const fromNetwork = async (file: string): Promise<Uint8Array> => {
    const response = await direct(new URL(file, runtimeUrl));
    if (!response.ok) throw new Error(`${file}: ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  };
  self.fetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const file = url.startsWith(runtimeUrl) ? url.slice(runtimeUrl.length) : "";
    if (RUNTIME_FILE_NAME.test(file) && (init?.method ?? "GET") === "GET") {
      // If the host cannot help (an older SDK, a failed fetch), the file is fetched as before;
      // if that fails too, the host's reason is the one worth reporting.
      return hostData(file).then(
        (data) => {
          const headers = { "Content-Type": mimeOf(file) };
          const body = data as Uint8Array<ArrayBuffer> | Blob;
          return headers["Content-Type"] === "application/wasm" && body instanceof Uint8Array
            ? compilingResponse(body, headers)
            : new Response(body, { headers });
        },
        (refused: unknown) => direct(input, init).catch(() => Promise.reject(refused)),
      );
    }
    return direct(input, init);
  };
  const orNetwork =
    (file: string) =>
    (refused: unknown): Promise<Uint8Array> =>
      fromNetwork(file).catch(() => Promise.reject(refused));
  const bytes = (file: string): Promise<Uint8Array> => hostData(file).then(toBytes).catch(orNetwork(file));
  const data = (file: string): Promise<Uint8Array | Blob> => hostData(file).catch(orNetwork(file));
  return Object.assign(bytes, { data });
}
