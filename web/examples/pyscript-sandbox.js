// The sandbox the page's trusted PyScript code uses (web/examples/pyscript.html): made once, by
// the SDK like any page would, and handed over as a promise on `window` (globalThis).
import { Sandbox } from "../sdk/wasmbox.js";

globalThis.wasmboxSandbox = Sandbox.create({ timeoutMs: 10_000 });
