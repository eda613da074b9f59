// "On this device" in the model picker: a model the site ships, or a .gguf file the user picks or
// drops, answered by localModel() in this page. Its status line shows the download and load, the
// speed while it answers, and that nothing is sent anywhere.
import { localModel, type ChatFn, type LocalModel, type LocalModelProgress } from "wasmbox";
import type { ShippedModel } from "../api/shipped-model.js";
import { h } from "./dom.js";

export const SHIPPED = "on-device";
export const PICKED = "on-device-file";
const NOTHING_SENT = "nothing is sent anywhere";
const mb = (bytes: number): string => `${Math.round(bytes / 1e6)} MB`;

export class LocalModelPicker {
  private shipped: LocalModel | null = null;
  private picked: LocalModel | null = null;
  private pickedName = "";

  constructor(
    private readonly select: HTMLSelectElement,
    private readonly fileInput: HTMLInputElement,
    private readonly status: HTMLElement,
    private readonly shippedModel: ShippedModel | null,
  ) {
    fileInput.addEventListener("change", () => {
      const file = fileInput.files?.[0];
      if (file) this.useFile(file);
      fileInput.value = "";
    });
    select.addEventListener("change", () => {
      if (select.value === PICKED && !this.picked) fileInput.click();
      this.showChoice();
    });
  }

  /** The options to add to the picker (after the server's models). */
  options(): HTMLOptionElement[] {
    const options: HTMLOptionElement[] = [];
    if (this.shippedModel) options.push(h("option", { value: SHIPPED }, `On this device: ${this.shippedModel.name}`));
    options.push(h("option", { value: PICKED }, this.pickedLabel()));
    return options;
  }

  get hasShipped(): boolean {
    return this.shippedModel !== null;
  }

  /** The chat function for a picker value, or null when it is a server's model. */
  chatFor(value: string): ChatFn | null {
    if (value === SHIPPED && this.shippedModel) {
      this.shipped ??= localModel({
        url: this.shippedModel.url,
        sha256: this.shippedModel.sha256,
        onProgress: (event) => this.showProgress(event),
      });
      return this.shipped;
    }
    if (value === PICKED) return this.picked;
    return null;
  }

  /** A picked or dropped .gguf file becomes the "On this device" model. */
  useFile(file: File): void {
    void this.picked?.close();
    this.pickedName = file.name;
    this.picked = localModel({ file, onProgress: (event) => this.showProgress(event) });
    const option = [...this.select.options].find((o) => o.value === PICKED);
    if (option) option.textContent = this.pickedLabel();
    this.select.value = PICKED;
    this.show(`On this device: ${file.name}, loaded when you send a message; ${NOTHING_SENT}.`);
  }

  private pickedLabel(): string {
    return this.pickedName ? `On this device: ${this.pickedName}` : "On this device: a .gguf file…";
  }

  private showChoice(): void {
    const value = this.select.value;
    if (value === SHIPPED || (value === PICKED && this.picked)) {
      const model = value === SHIPPED ? this.chatFor(SHIPPED) : this.picked;
      const info = (model as LocalModel | null)?.info;
      this.show(
        info
          ? `On this device: ready; ${NOTHING_SENT}.`
          : `On this device: loaded when you send a message; ${NOTHING_SENT}.`,
      );
    } else if (value !== PICKED) {
      this.show("");
    }
  }

  private showProgress(event: LocalModelProgress): void {
    switch (event.phase) {
      case "download":
        return this.show(`On this device: downloading the model, ${mb(event.loaded)} of ${mb(event.total)}`);
      case "verify":
        return this.show("On this device: checking the model's sha256");
      case "store":
        return this.show("On this device: keeping the model for offline visits");
      case "load":
        return this.show(`On this device: loading the model (${mb(event.bytes)})`);
      case "ready":
        return this.show(
          `On this device: ready (${event.info.fromStore ? "from this browser's store" : "stored for offline use"}, ` +
            `${event.info.threads} thread${event.info.threads > 1 ? "s" : ""}); ${NOTHING_SENT}.`,
        );
      case "prompt":
        return this.show(`On this device: reading the conversation, ${event.processed} of ${event.total} tokens`);
      case "generate":
        return this.show(`On this device: ${event.tokensPerSecond.toFixed(1)} tokens/s; ${NOTHING_SENT}.`);
      case "done":
        return this.show(
          `On this device: ${event.timings.generationPerSecond.toFixed(1)} tokens/s, ` +
            `${event.timings.cachedTokens} tokens reused from the cache; ${NOTHING_SENT}.`,
        );
    }
  }

  private show(text: string): void {
    this.status.textContent = text;
    this.status.hidden = !text;
  }
}
