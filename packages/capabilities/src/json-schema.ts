import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv";
import { pathOf, pointerParts } from "@palisade/schema";
import { re2RegExp } from "./schema-regexp.js";

/**
 * Compiles tool input schemas. Draft-07 by default, 2020-12 when the schema says so. Lenient
 * about unknown keywords and formats: capability authors write schemas for LLMs, not for ajv.
 * Patterns run on RE2 (schema-regexp.ts): the model writes the strings they are matched against.
 */
const options = { allErrors: true, strict: false, validateFormats: false, code: { regExp: re2RegExp } } as const;
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

/** Readable messages for ajv errors, one per error, naming the field. */
export function describeAjvErrors(
  errors: ErrorObject[] | null | undefined,
  base = "",
): { path: string; message: string }[] {
  return (errors ?? []).map((e) => {
    const path = pathOf(pointerParts(e.instancePath), base);
    const p = e.params as Record<string, unknown>;
    switch (e.keyword) {
      case "required":
        return {
          path: path ? `${path}.${String(p.missingProperty)}` : String(p.missingProperty),
          message: "is required",
        };
      case "enum":
        return {
          path,
          message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")} (got ${JSON.stringify(e.data)})`,
        };
      case "type":
        return { path, message: `must be ${String(p.type)} (got ${JSON.stringify(e.data)})` };
      case "additionalProperties":
        return {
          path: path ? `${path}.${String(p.additionalProperty)}` : String(p.additionalProperty),
          message: "is not allowed",
        };
      default: {
        const hint = (e.parentSchema as { description?: string } | undefined)?.description;
        return {
          path,
          message:
            hint && e.keyword === "pattern" ? `${hint} (got ${JSON.stringify(e.data)})` : (e.message ?? e.keyword),
        };
      }
    }
  });
}
