// What the backend says about the model side (GET /api/config).

export interface AppConfig {
  models: string[];
  llmConfigured: boolean;
  howToConfigure: string | null;
}

export async function fetchConfig(): Promise<AppConfig> {
  const response = await fetch("/api/config", { credentials: "same-origin" });
  if (!response.ok) throw new Error(`/api/config answered ${response.status}`);
  const data = (await response.json()) as Partial<AppConfig>;
  return {
    models: Array.isArray(data.models) ? data.models.filter((m): m is string => typeof m === "string") : [],
    llmConfigured: data.llmConfigured === true,
    howToConfigure: typeof data.howToConfigure === "string" ? data.howToConfigure : null,
  };
}
