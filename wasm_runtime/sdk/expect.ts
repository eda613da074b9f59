// `execute(code, { expect })`: check the JSON form of the run's value against a JSON Schema.
// @cfworker/json-schema interprets schemas without eval, so it works under the app's CSP.
import { Validator, type Schema } from "@cfworker/json-schema";
import type { MimeBundle, Validation } from "../protocol/types.js";

export type JsonSchema = Schema | boolean;

export function validateValue(value: MimeBundle | null, schema: JsonSchema): Validation {
  const json = value?.["application/json"];
  if (json === undefined) return { ok: false, errors: ["the run's value has no application/json form"] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { ok: false, errors: ["the run's application/json value is not valid JSON"] };
  }
  const output = new Validator(schema, "2020-12", false).validate(parsed);
  return { ok: output.valid, errors: output.errors.map((e) => `${e.instanceLocation}: ${e.error}`) };
}
