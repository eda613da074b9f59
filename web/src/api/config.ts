// What the backend says about the model side (GET /api/config).
import type { StreamingMode } from "wasmbox";

export interface AppConfig {
  models: string[];
  llmConfigured: boolean;
  howToConfigure: string | null;
  /** Per model, whether the agent streams (WASMBOX_STREAMING on the server); others "auto". */
  streaming: Record<string, StreamingMode>;
  /** A wasmbox server answered (its proxy holds the key); false on a static host or offline. */
  server: boolean;
}

const MODES: readonly string[] = ["auto", "always", "never"];

/** What the app shows where no wasmbox server answers: a static host (`wasmbox export`). */
export const STATIC_HOST_CONFIG: AppConfig = {
  models: [],
  llmConfigured: false,
  howToConfigure:
    "This copy of wasmbox has no server: the Python console works. For the chat, enter an OpenAI-compatible endpoint under Model endpoint.",
  streaming: {},
  server: false,
};

/** The configuration on a static host once the user has entered an endpoint. */
export function endpointConfig(model: string): AppConfig {
  return { ...STATIC_HOST_CONFIG, models: [model], llmConfigured: true, howToConfigure: null };
}

export async function fetchConfig(): Promise<AppConfig> {
  // Relative: the app may live under a sub-path. A static host answers 404 (or an HTML page).
  // Offline (a cached app) is like a static host: there is no server to ask.
  const response = await fetch("api/config", { credentials: "same-origin" }).catch(() => null);
  if (!response) return STATIC_HOST_CONFIG;
  if (response.status === 404 || !response.headers.get("Content-Type")?.includes("json")) return STATIC_HOST_CONFIG;
  if (!response.ok) throw new Error(`api/config answered ${response.status}`);
  const data = (await response.json()) as Partial<Record<keyof AppConfig, unknown>>;
  const streaming: Record<string, StreamingMode> = {};
  if (data.streaming && typeof data.streaming === "object") {
    for (const [model, mode] of Object.entries(data.streaming)) {
      if (typeof mode === "string" && MODES.includes(mode)) streaming[model] = mode as StreamingMode;
    }
  }
  return {
    models: Array.isArray(data.models) ? data.models.filter((m): m is string => typeof m === "string") : [],
    llmConfigured: data.llmConfigured === true,
    howToConfigure: typeof data.howToConfigure === "string" ? data.howToConfigure : null,
    streaming,
    server: true,
  };
}
