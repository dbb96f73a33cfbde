// Argument validation against a tool's JSON Schema (ajv), with messages the model can act on.
// Compiled as the capability catalog compiles tool schemas (draft-07 or 2020-12, patterns on RE2:
// the schema is a capability's, the string the model's).
import type { ErrorObject, ValidateFunction } from "ajv";
import { compileToolSchema } from "@palisade/capabilities";

export class ArgumentValidator {
  private readonly cache = new Map<string, ValidateFunction | string>();

  /** Undefined when valid, else one message listing every problem. */
  validate(toolName: string, schema: Record<string, unknown>, args: unknown): string | undefined {
    let fn = this.cache.get(toolName);
    if (fn === undefined) {
      try {
        fn = compileToolSchema(schema);
      } catch (err) {
        fn = `the tool's schema is invalid (${(err as Error).message})`;
      }
      this.cache.set(toolName, fn);
    }
    if (typeof fn === "string") return fn;
    if (fn(args)) return undefined;
    return formatErrors(fn.errors ?? []);
  }

  forget(): void {
    this.cache.clear();
  }
}

export function formatErrors(errors: readonly ErrorObject[]): string {
  const lines = errors.map((e) => {
    const where = e.instancePath ? `/${e.instancePath.replace(/^\//, "")}` : "arguments";
    if (e.keyword === "required")
      return `${where}: missing required property "${String((e.params as { missingProperty?: string }).missingProperty)}"`;
    if (e.keyword === "additionalProperties") {
      return `${where}: unknown property "${String((e.params as { additionalProperty?: string }).additionalProperty)}"`;
    }
    if (e.keyword === "enum")
      return `${where}: must be one of ${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)}`;
    return `${where}: ${e.message ?? e.keyword}`;
  });
  return [...new Set(lines)].join("; ");
}
