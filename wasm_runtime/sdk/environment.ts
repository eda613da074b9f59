// `environment()`: the kernel's description of itself, with what the host adds.
import { LIMITS } from "../protocol/types.js";
import type { Engine } from "./engine.js";
import type { SandboxEnvironment } from "./events.js";
import { modeOf } from "./mode.js";
import type { Settings } from "./options.js";
import { expectReply } from "./reply.js";
import type { ToolInfo } from "./tools.js";
import { storageReport } from "./session/storage.js";

/** The limits the host enforces added to `limits`, the tools, the mode (interrupt or terminate-only), the storage and snapshot. */
export async function describe(
  engine: Engine,
  { timeoutMs, memoryBudgetBytes }: Settings,
  tools: ToolInfo[],
): Promise<SandboxEnvironment> {
  const { environment } = expectReply(await engine.call({ type: "environment" }), "environment");
  environment.limits = {
    ...environment.limits,
    timeoutMs,
    memoryBudgetBytes,
    memoryBudgetHeld: engine.memoryBudget,
    maxRequestBytes: LIMITS.maxFileBytes,
  };
  return {
    ...environment,
    tools,
    ...modeOf(engine.isolated),
    storage: await storageReport(),
    snapshot: engine.bootedFrom,
  };
}
