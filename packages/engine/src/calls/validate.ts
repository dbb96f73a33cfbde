// Argument validation against a tool's JSON Schema (ajv), with messages the model can act on.
// Compiled as the capability catalog compiles tool schemas (draft-07 or 2020-12, patterns on RE2:
// the schema is a capability's, the string the model's); worded as every schema problem is
// (@palisade/schema).
import type { ValidateFunction } from "ajv";
import { compileToolSchema } from "@palisade/capabilities";
import { argumentProblems } from "@palisade/schema";

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
    return argumentProblems(toolName, fn.errors).join("; ");
  }

  forget(): void {
    this.cache.clear();
  }
}
