// A worker's reply to one request, checked against the type the request expects.
import type { WorkerReply } from "../protocol/types.js";
import { SandboxError } from "./errors.js";

type ReplyOf<T extends string> = Extract<WorkerReply, { type: T }>;

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
