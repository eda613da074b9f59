// embed.js: one <script type="module" src=".../embed.js"> and the page can use <wasmbox-cell>.
// The SDK stays a separate file (./sdk/wasmbox.js next to this one), shared with the app.
import { showUpdateNotice } from "../sw/notice.js";
import { registerOffline } from "../sw/register.js";
import { WasmboxCell } from "./cell.js";

performance.mark("wasmbox:embed-loaded");
if (!customElements.get("wasmbox-cell")) customElements.define("wasmbox-cell", WasmboxCell);
// Offline after one visit, for pages inside the export's folder (the worker's scope).
registerOffline(new URL("./sw.js", import.meta.url), showUpdateNotice);

export { WasmboxCell };
