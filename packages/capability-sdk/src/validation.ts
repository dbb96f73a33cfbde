import { Ajv } from "ajv";
import type { ErrorObject, ValidateFunction } from "ajv";
import type { JsonSchema } from "./types.js";

export type ArgsValidator = (args: unknown) => string | undefined;

/**
 * One ajv instance per capability. Strict about schema keywords (a typo such as `require`
 * is a definition error, not a silently ignored rule); formats are not validated because
 * ajv-formats is not part of the SDK.
 */
export function createAjv(): Ajv {
  return new Ajv({ allErrors: true, strict: true, strictTypes: false, strictTuples: false, validateFormats: false, allowUnionTypes: true });
}

/** Compiles `schema`; returns the validator or the compile error message. */
export function compileSchema(ajv: Ajv, schema: JsonSchema): ArgsValidator | string {
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  return (args) => (validate(args) ? undefined : formatErrors(validate.errors ?? []));
}

/** `/path must be string; /mode must be equal to one of the allowed values (r, w)`. */
export function formatErrors(errors: readonly ErrorObject[]): string {
  const lines = errors.map(formatError);
  return [...new Set(lines)].join("; ");
}

function formatError(e: ErrorObject): string {
  const at = e.instancePath;
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return `${at}/${String(params.missingProperty)} is required`;
    case "additionalProperties":
      return `${at}/${String(params.additionalProperty)} is not allowed`;
    case "enum":
      return `${at || "arguments"} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    default:
      return `${at || "arguments"} ${e.message ?? `fails ${e.keyword}`}`;
  }
}
