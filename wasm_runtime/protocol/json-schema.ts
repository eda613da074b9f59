// The SDK's ExecutionResult as JSON Schema, for the Python client (wasmbox/results.py is checked
// against it and reads the outcomes from it). Made from schema.ts by `make protocol`; the file is
// committed, so an install needs no Node, and tests/js/json-schema.test.ts fails when it no longer
// matches the valibot schema.
import { type JSONSchema7, toJsonSchema } from "@valibot/to-json-schema";
import { ExecutionResultSchema } from "./schema.js";

export const RESULT_SCHEMA_FILE = new URL("./execution-result.schema.json", import.meta.url);

/** What the SDK returns (the output side of the schema); caps become maxLength and maxItems. */
export function executionResultJsonSchema(): JSONSchema7 {
  const converted = toJsonSchema(ExecutionResultSchema, {
    typeMode: "output",
    errorMode: "throw",
    // JSON has no other numbers; the display caps transform a bundle into one of the same shape.
    ignoreActions: ["finite", "transform"],
  });
  return outputSide(converted) as JSONSchema7;
}

/** The file's text: the schema, two-space indented, with a final newline. */
export const resultSchemaText = (): string => `${JSON.stringify(executionResultJsonSchema(), null, 2)}\n`;

type Json = { [key: string]: unknown };
const isJson = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Two fix-ups of the converter's output. A field that may arrive absent and always leaves as null
 * (`absentOr` in schema.ts) is converted as optional with a default: on the output side it is
 * required and nullable. And the two input forms of a network attempt leave as one shape. Objects
 * leave with their schema's fields only.
 */
function outputSide(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(outputSide);
  if (!isJson(node)) return node;
  const out: Json = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, outputSide(value)]));
  if (isJson(out.properties)) {
    const properties = out.properties;
    const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
    for (const [key, property] of Object.entries(properties)) {
      if (isJson(property) && property.default === null) {
        delete property.default;
        required.add(key);
      }
    }
    out.required = Object.keys(properties).filter((key) => required.has(key));
    out.additionalProperties ??= false; // parsing drops unknown fields
  }
  if (Array.isArray(out.anyOf)) {
    const distinct = [...new Map(out.anyOf.map((branch) => [JSON.stringify(branch), branch])).values()];
    if (distinct.length === 1) {
      delete out.anyOf;
      Object.assign(out, distinct[0]);
    } else out.anyOf = distinct;
  }
  return out;
}
