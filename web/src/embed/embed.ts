// embed.js: one <script type="module" src=".../embed.js"> and the page can use <wasmbox-cell>.
// The SDK stays a separate file (./sdk/wasmbox.js next to this one), shared with the app.
import { WasmboxCell } from "./cell.js";

if (!customElements.get("wasmbox-cell")) customElements.define("wasmbox-cell", WasmboxCell);

export { WasmboxCell };
