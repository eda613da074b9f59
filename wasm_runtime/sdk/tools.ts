// Host tools: functions of the page that sandboxed Python may call (`from wasmbox import tools`),
// and the answers to its input(). A capability the host grants, checked here with the same care
// as the isolation: a call names a tool the run was given, its arguments are JSON text that must
// parse, fit the caps (protocol/limits.json) and match the tool's JSON Schema before the handler
// runs, and only JSON goes back (no functions, no host objects, no cycles). The engine routes
// calls and answers (engine.ts); the watchdog stops a run's calls with the run (watchdog.ts).
import { Validator } from "@cfworker/json-schema";
import {
  LIMITS,
  TOOL_NAME,
  type HostCall,
  type RunHost,
  type ToolCallRecord,
  type ToolSpec,
} from "../protocol/types.js";
import type { JsonSchema } from "./expect.js";

/** One tool: what it does (for the model and `help()`), its keyword arguments, and the function. */
export interface ToolDefinition {
  description: string;
  /** A JSON Schema for the keyword arguments (an object schema; `{}` takes any). */
  parameters: JsonSchema;
  /** Called with the checked arguments; returns JSON data (or a promise of it). Throwing raises ToolError in Python. */
  handler: (args: Record<string, unknown>) => unknown;
}

export type Tools = Record<string, ToolDefinition>;

/** `execute(code, { onInput })`: the line input() returns (without its newline); null ends the input (EOFError). */
export type InputHandler = (prompt: string) => string | null | Promise<string | null>;

/** A tool as `environment()` and the agent's prompt list it: name, description, Python signature. */
export type ToolInfo = ToolSpec;

/** What a host call is answered with: JSON text, or why not. */
export interface HostCallAnswer {
  ok: boolean;
  value: string;
  error: string;
}

interface CheckedTool extends ToolSpec {
  validator: Validator;
  handler: ToolDefinition["handler"];
}

const PYTHON_KEYWORDS = new Set(
  (
    "False None True and as assert async await break class continue def del elif else except finally for " +
    "from global if import in is lambda nonlocal not or pass raise return try while with yield"
  ).split(" "),
);
const MAX_DESCRIPTION = 4096;
const MAX_ERROR = 4096;

/** A checked set of tools; `ToolSet.of` throws a TypeError naming what is wrong. */
export class ToolSet {
  static readonly empty = new ToolSet(new Map());

  private constructor(private readonly tools: ReadonlyMap<string, CheckedTool>) {}

  static of(tools: unknown): ToolSet {
    if (tools === undefined) return ToolSet.empty;
    if (typeof tools !== "object" || tools === null || Array.isArray(tools))
      throw new TypeError("tools must be an object of { name: { description, parameters, handler } }");
    const entries = Object.entries(tools);
    if (entries.length > LIMITS.maxTools) throw new TypeError(`at most ${LIMITS.maxTools} tools may be given`);
    return new ToolSet(new Map(entries.map(([name, definition]) => [name, checkTool(name, definition)])));
  }

  get size(): number {
    return this.tools.size;
  }

  get(name: string): CheckedTool | undefined {
    return this.tools.get(name);
  }

  /** These tools with `more` added (a run's own tools replace the sandbox's of the same name). */
  with(more: ToolSet): ToolSet {
    if (!more.size) return this;
    const merged = new Map([...this.tools, ...more.tools]);
    if (merged.size > LIMITS.maxTools) throw new TypeError(`at most ${LIMITS.maxTools} tools may be given`);
    return new ToolSet(merged);
  }

  describe(): ToolInfo[] {
    return [...this.tools.values()].map(({ name, description, signature }) => ({ name, description, signature }));
  }
}

function checkTool(name: string, definition: unknown): CheckedTool {
  const what = `tool ${JSON.stringify(name)}`;
  if (!TOOL_NAME.test(name) || PYTHON_KEYWORDS.has(name) || name.startsWith("__"))
    throw new TypeError(`${what}: a tool's name must be a Python identifier (not a keyword), at most 64 characters`);
  if (typeof definition !== "object" || definition === null)
    throw new TypeError(`${what} must be { description, parameters, handler }`);
  const { description, parameters, handler } = definition as Partial<ToolDefinition>;
  if (typeof description !== "string" || description.length > MAX_DESCRIPTION)
    throw new TypeError(`${what}: description must be a string of at most ${MAX_DESCRIPTION} characters`);
  if (typeof handler !== "function") throw new TypeError(`${what}: handler must be a function`);
  if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters))
    throw new TypeError(`${what}: parameters must be a JSON Schema object`);
  const type = (parameters as { type?: unknown }).type;
  if (type !== undefined && type !== "object")
    throw new TypeError(`${what}: parameters must describe an object (keyword arguments), not ${String(type)}`);
  // A copy: the page changing its schema later must not change what was checked.
  const schema = JSON.parse(JSON.stringify(parameters)) as Exclude<JsonSchema, boolean>;
  return {
    name,
    description,
    signature: pythonSignature(name, schema),
    validator: new Validator(schema, "2020-12", false),
    handler,
  };
}

const PYTHON_TYPES: Record<string, string> = {
  string: "str",
  integer: "int",
  number: "float",
  boolean: "bool",
  array: "list",
  object: "dict",
  null: "None",
};

function pythonType(schema: unknown): string {
  if (typeof schema !== "object" || schema === null) return "Any";
  const { type, enum: choices } = schema as { type?: unknown; enum?: unknown };
  if (Array.isArray(choices) && choices.length && choices.length <= 20)
    return `Literal[${choices.map((c) => JSON.stringify(c)).join(", ")}]`;
  const types = (Array.isArray(type) ? type : [type]).filter((t): t is string => typeof t === "string");
  const names = types.map((t) => PYTHON_TYPES[t]).filter((t): t is string => t !== undefined);
  return names.length ? names.join(" | ") : "Any";
}

/** `name(*, a: str, b: int = ...) -> Any`: keyword-only, required ones first. */
export function pythonSignature(name: string, schema: Exclude<JsonSchema, boolean>): string {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const names = Object.keys(properties);
  const params = [
    ...names.filter((p) => required.has(p)).map((p) => `${p}: ${pythonType(properties[p])}`),
    ...names.filter((p) => !required.has(p)).map((p) => `${p}: ${pythonType(properties[p])} = ...`),
  ];
  return `${name}(${params.length ? `*, ${params.join(", ")}` : ""}) -> Any`;
}

const utf8Bytes = (text: string): number => new TextEncoder().encode(text).byteLength;

/**
 * `value` as JSON text, or the reason it is not JSON data: only null, booleans, finite numbers,
 * strings, arrays and plain objects, no cycles, at most LIMITS.maxToolDepth deep and
 * LIMITS.maxToolBytes long. Functions, symbols, undefined, Map, Date and class instances are
 * refused rather than silently dropped or changed, as JSON.stringify would.
 */
export function toJsonText(value: unknown): { text: string } | { problem: string } {
  const problem = jsonProblem(value, 0, new Set());
  if (problem) return { problem };
  const text = JSON.stringify(value);
  if (utf8Bytes(text) > LIMITS.maxToolBytes) return { problem: `it is over the ${LIMITS.maxToolBytes}-byte cap` };
  return { text };
}

function jsonProblem(value: unknown, depth: number, path: Set<object>): string | null {
  if (value === null || typeof value === "string" || typeof value === "boolean") return null;
  if (typeof value === "number") return Number.isFinite(value) ? null : `${value} is not a JSON number`;
  if (typeof value !== "object") return `a ${typeof value} is not JSON data`;
  if (depth >= LIMITS.maxToolDepth) return `it is nested more than ${LIMITS.maxToolDepth} deep`;
  if (path.has(value)) return "it refers to itself (a cycle)";
  const proto: unknown = Object.getPrototypeOf(value);
  const isArray = Array.isArray(value);
  if (!isArray && proto !== Object.prototype && proto !== null)
    return `a ${value.constructor?.name ?? "non-plain"} object is not JSON data`;
  path.add(value);
  try {
    for (const item of isArray ? value : Object.values(value)) {
      const problem = jsonProblem(item, depth + 1, path);
      if (problem) return problem;
    }
    return null;
  } finally {
    path.delete(value);
  }
}

/** Parse the sandbox's JSON text: it must fit the caps; the result is fresh host data. */
export function parseJsonText(text: string): { value: unknown } | { problem: string } {
  if (utf8Bytes(text) > LIMITS.maxToolBytes) return { problem: `they are over the ${LIMITS.maxToolBytes}-byte cap` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: "they are not JSON" };
  }
  const problem = jsonProblem(value, 0, new Set());
  return problem ? { problem } : { value };
}

const refuse = (error: string): HostCallAnswer => ({ ok: false, value: "", error: error.slice(0, MAX_ERROR) });
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** One run's host calls: answered, capped, and recorded for `audit.toolCalls`. */
export class RunCalls {
  private readonly records: ToolCallRecord[] = [];
  /** Tool calls still waiting for their handler: recorded as unanswered if the run ends first. */
  private readonly open = new Map<HostCall, number>();
  private made = 0;
  private closed = false;

  constructor(
    private readonly tools: ToolSet,
    private readonly onInput: InputHandler | undefined,
  ) {}

  /** What the run is told it may ask (the worker hands this to Python). */
  get host(): RunHost {
    return { tools: this.tools.describe(), input: this.onInput !== undefined };
  }

  async answer(call: HostCall): Promise<HostCallAnswer> {
    if (++this.made > LIMITS.maxToolCallsPerRun)
      return this.record(call, 0, refuse(`a run may make at most ${LIMITS.maxToolCallsPerRun} host calls`));
    if (this.open.size >= LIMITS.maxPendingToolCalls)
      return this.record(call, 0, refuse(`at most ${LIMITS.maxPendingToolCalls} host calls may wait at once`));
    const started = performance.now();
    this.open.set(call, started);
    try {
      const answer = call.kind === "input" ? await this.input(call) : await this.tool(call);
      return this.record(call, performance.now() - started, answer);
    } finally {
      this.open.delete(call);
    }
  }

  /** The run is over: its record, with the calls it left unanswered; later answers are not recorded. */
  close(): ToolCallRecord[] {
    if (!this.closed) {
      this.closed = true;
      const now = performance.now();
      for (const [call, started] of this.open)
        this.record(call, now - started, refuse("the run ended before the host answered"), true);
    }
    return [...this.records];
  }

  private record(call: HostCall, ms: number, answer: HostCallAnswer, closing = false): HostCallAnswer {
    if (call.kind === "tool" && (!this.closed || closing) && this.records.length < LIMITS.maxListEntries)
      this.records.push({
        name: call.name,
        argumentsBytes: utf8Bytes(call.args),
        ms,
        ok: answer.ok,
        error: answer.ok ? null : answer.error,
      });
    return answer;
  }

  private async tool(call: HostCall): Promise<HostCallAnswer> {
    const tool = this.tools.get(call.name);
    if (!tool) return refuse(`the host grants no tool ${call.name} to this run`);
    const parsed = parseJsonText(call.args);
    if ("problem" in parsed) return refuse(`the arguments of ${call.name} were refused: ${parsed.problem}`);
    const args = parsed.value;
    if (typeof args !== "object" || args === null || Array.isArray(args))
      return refuse(`the arguments of ${call.name} must be keyword arguments`);
    const checked = tool.validator.validate(args);
    if (!checked.valid) {
      const why = checked.errors.map((e) => `${e.instanceLocation}: ${e.error}`).join("; ");
      return refuse(`the arguments of ${call.name} do not match its parameters: ${why}`);
    }
    let result: unknown;
    try {
      result = await tool.handler(args as Record<string, unknown>);
    } catch (error) {
      return refuse(messageOf(error));
    }
    const json = toJsonText(result === undefined ? null : result);
    if ("problem" in json) return refuse(`${call.name} answered with something that is not JSON data: ${json.problem}`);
    return { ok: true, value: json.text, error: "" };
  }

  private async input(call: HostCall): Promise<HostCallAnswer> {
    if (!this.onInput) return refuse("nobody answers input() in this run");
    const prompt = parseJsonText(call.args);
    const text = "value" in prompt && typeof prompt.value === "string" ? prompt.value : "";
    let line: unknown;
    try {
      line = await this.onInput(text);
    } catch (error) {
      return refuse(messageOf(error));
    }
    if (line === null || line === undefined) return refuse("the host ended the input");
    if (typeof line !== "string") return refuse("onInput must return a string");
    const json = toJsonText(line);
    return "problem" in json
      ? refuse(`the input line was refused: ${json.problem}`)
      : { ok: true, value: json.text, error: "" };
  }
}

// The tools each sandbox was created with: kept beside it, not in its settings (which are saved).
const granted = new WeakMap<object, ToolSet>();

export function grantTools(sandbox: object, tools: ToolSet): void {
  granted.set(sandbox, tools);
}

export function toolsOf(sandbox: object): ToolSet {
  return granted.get(sandbox) ?? ToolSet.empty;
}

/** A run's calls: the sandbox's tools, the run's own, and its input handler (checked: throws a TypeError). */
export function runCallsFor(sandbox: object, options: { tools?: Tools; onInput?: InputHandler }): RunCalls {
  if (options.onInput !== undefined && typeof options.onInput !== "function")
    throw new TypeError("onInput must be a function (prompt) => string");
  return new RunCalls(toolsOf(sandbox).with(ToolSet.of(options.tools)), options.onInput);
}
