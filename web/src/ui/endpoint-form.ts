// The "Model endpoint" panel of the app on a static host: enter, save or forget the endpoint, and
// read plainly where chat requests go. Saving reloads the page, whose network policy then names
// the new endpoint's origin (api/endpoint.ts).
import { forgetEndpoint, parseEndpoint, saveEndpoint, type Endpoint } from "../api/endpoint.js";
import { byId } from "./dom.js";

export function showEndpointForm(current: Endpoint | null, reload: () => void = () => location.reload()): void {
  const section = byId("endpoint");
  const url = byId<HTMLInputElement>("endpoint-url");
  const model = byId<HTMLInputElement>("endpoint-model");
  const key = byId<HTMLInputElement>("endpoint-key");
  const problem = byId("endpoint-error");
  section.hidden = false;
  url.value = current?.baseUrl ?? "";
  model.value = current?.model ?? "";
  key.value = current?.apiKey ?? "";
  byId("endpoint-where").textContent = current
    ? `Chat requests go from this browser straight to ${current.baseUrl} (model ${current.model}). ` +
      `The endpoint${current.apiKey ? " and its key are" : " is"} kept in this browser only and sent nowhere else; ` +
      "the Python sandbox never sees them."
    : "No endpoint: the chat is off and nothing leaves this page. The Python console works.";
  byId<HTMLButtonElement>("endpoint-forget").disabled = current === null;

  byId("endpoint-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const entered = parseEndpoint(url.value, model.value, key.value);
    problem.textContent = entered instanceof Error ? `Not saved: ${entered.message}.` : "";
    if (entered instanceof Error) return;
    try {
      saveEndpoint(entered);
    } catch (error) {
      problem.textContent = `Not saved: ${error instanceof Error ? error.message : error}.`;
      return;
    }
    reload();
  });
  byId("endpoint-forget").addEventListener("click", () => {
    forgetEndpoint();
    reload();
  });
}
