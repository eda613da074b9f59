// "An update is ready" for the user, in its own shadow root so no page's CSS changes it.
export function showUpdateNotice(apply: () => void): void {
  if (document.querySelector("wasmbox-update-notice")) return;
  const host = document.createElement("wasmbox-update-notice");
  const root = host.attachShadow({ mode: "open" });
  const style = document.createElement("style");
  style.textContent =
    ".notice { position: fixed; inset: auto 1rem 1rem auto; z-index: 2147483647; display: flex; gap: .5rem; align-items: center;" +
    " padding: .5rem .75rem; border: 1px solid #8888; border-radius: .5rem; background: Canvas; color: CanvasText; font: 14px system-ui, sans-serif; }";
  const box = document.createElement("div");
  box.className = "notice";
  box.setAttribute("role", "status");
  const text = document.createElement("span");
  text.textContent = "An update of wasmbox is ready.";
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = "Reload to update";
  button.addEventListener("click", apply);
  box.append(text, button);
  root.append(style, box);
  document.body.append(host);
}
