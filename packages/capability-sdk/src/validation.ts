import { Ajv } from "ajv";
import type { ValidateFunction } from "ajv";
import { argumentProblems, schemaProblems } from "@palisade/schema";
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
    // errors carry the value and the schema: the wording of @palisade/schema needs them
    verbose: true,
  });
}

/**
 * Compiles the input schema of `tool`; returns the validator or the compile error message. The
 * validator's problems read as the Engine's do: `read_file: arguments.path: must be a string, got number 3`.
 */
export function compileSchema(ajv: Ajv, schema: JsonSchema, tool: string): ArgsValidator | string {
  let validate: ValidateFunction;
  try {
    if (!ajv.validateSchema(schema)) return `not a valid JSON Schema: ${schemaWords(ajv.errors)}`;
    validate = ajv.compile(schema);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  return (args) => (validate(args) ? undefined : argumentProblems(tool, validate.errors).join("; "));
}

/** The meta-schema's first problem at each path (its other branches, `anyOf` alternatives, only repeat it). */
function schemaWords(errors: Ajv["errors"]): string {
  const first = new Map<string, string>();
  for (const p of schemaProblems(errors)) if (!first.has(p.path)) first.set(p.path, p.message);
  return [...first].map(([path, message]) => (path ? `${path}: ${message}` : message)).join("; ");
}
