// A worker's reply to one request, checked against the type the request expects.
import type { WorkerReply } from "../protocol/types.js";
import type { Engine } from "./engine.js";
import { SandboxError } from "./errors.js";

/** What `Engine.call` takes: any request but `execute` (which goes through the watchdog). */
export type EngineRequest = Parameters<Engine["call"]>[0];
export type ReplyOf<T extends string> = Extract<WorkerReply, { type: T }>;

/** The reply of the expected type; a `failed` reply becomes a SandboxError with the worker's error. */
export function expectReply<T extends WorkerReply["type"]>(reply: WorkerReply, type: T): ReplyOf<T> {
  if (reply.type === type) return reply as ReplyOf<T>;
  if (reply.type === "failed") {
    const { error, limit } = reply;
    const details = { errorName: error.name, traceback: error.traceback };
    if (limit)
      throw new SandboxError("limit_exceeded", error.message, { ...details, ...limit, path: limit.path ?? undefined });
    throw new SandboxError("request_failed", error.message, details);
  }
  throw new SandboxError("protocol", `the sandbox answered ${reply.type} where ${type} was expected`, {
    field: "type",
  });
}
