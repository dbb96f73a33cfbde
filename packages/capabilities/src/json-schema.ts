import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv";
import { re2RegExp } from "./schema-regexp.js";

/**
 * Compiles tool input schemas. Draft-07 by default, 2020-12 when the schema says so. Lenient
 * about unknown keywords and formats: capability authors write schemas for LLMs, not for ajv.
 * Patterns run on RE2 (schema-regexp.ts): the model writes the strings they are matched against.
 * `verbose`: errors carry the schema and the value, for @palisade/schema's wording.
 */
const options = {
  allErrors: true,
  verbose: true,
  strict: false,
  validateFormats: false,
  code: { regExp: re2RegExp },
} as const;
let draft7: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

/**
 * A `$ref` to another document (e.g. `https://…/address.json`) is never fetched: the schema is
 * kept as the server wrote it, and the referenced part accepts any value (the server still
 * checks its own input).
 */
export function compileToolSchema(schema: Record<string, unknown>): ValidateFunction {
  const is2020 = typeof schema.$schema === "string" && schema.$schema.includes("2020-12");
  const ajv = is2020 ? (draft2020 ??= new Ajv2020(options)) : (draft7 ??= new Ajv(options));
  for (let unresolved = 0; ; unresolved++) {
    try {
      return ajv.compile(schema);
    } catch (err) {
      const ref = (err as { missingSchema?: unknown }).missingSchema;
      if (typeof ref !== "string" || ref === "" || unresolved >= 32 || ajv.getSchema(ref) !== undefined) throw err;
      ajv.addSchema({ $id: ref }, ref);
    }
  }
}
