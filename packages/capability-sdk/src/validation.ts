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
  return new Ajv({
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictTuples: false,
    validateFormats: false,
    allowUnionTypes: true,
  });
}

/** Compiles `schema`; returns the validator or the compile error message. */
export function compileSchema(ajv: Ajv, schema: JsonSchema): ArgsValidator | string {
  let validate: ValidateFunction;
  try {
    if (!ajv.validateSchema(schema)) return `not a valid JSON Schema: ${formatErrors(ajv.errors ?? [], "schema")}`;
    validate = ajv.compile(schema);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  return (args) => (validate(args) ? undefined : formatErrors(validate.errors ?? []));
}

/** `/path must be string; /mode must be one of "r", "w"; /name is required`. */
export function formatErrors(errors: readonly ErrorObject[], root = "arguments"): string {
  const lines = errors.filter((e) => e.keyword !== "anyOf" && e.keyword !== "oneOf").map((e) => formatError(e, root));
  return [...new Set(lines)].join("; ");
}

function formatError(e: ErrorObject, root: string): string {
  const at = e.instancePath;
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return `${at}/${String(params.missingProperty)} is required`;
    case "additionalProperties":
      return `${at}/${String(params.additionalProperty)} is not allowed`;
    case "enum":
      return `${at || root} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    default:
      return `${at || root} ${e.message ?? `fails ${e.keyword}`}`;
  }
}
