/** File edge of the policy module: reads policy files and the policies shipped in the package. */
import { readFile } from "node:fs/promises";
import { ShieldError } from "../errors.js";
import { BUILTIN_POLICIES, builtinPolicyPath } from "./builtin.js";
import type { BuiltinPolicy } from "./builtin.js";
// What a caller needs to tell a bad policy from an unreadable one (@palisade/shield/policy).
export { ShieldError } from "../errors.js";
export { PolicyError } from "./errors.js";
import { parsePolicy } from "./parse.js";
import type { Policy } from "./types.js";

export { BUILTIN_POLICIES, builtinPolicyPath };
export type { BuiltinPolicy };

/** Loads `default` / `strict` / `permissive` or a YAML file path. Throws PolicyError / ShieldError. */
export async function loadPolicy(pathOrName: string): Promise<Policy> {
  const file = (BUILTIN_POLICIES as readonly string[]).includes(pathOrName)
    ? builtinPolicyPath(pathOrName as BuiltinPolicy)
    : pathOrName;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    throw new ShieldError(
      `cannot read policy ${file}: ${(e as Error).message}. Give a YAML file or one of ${BUILTIN_POLICIES.join(", ")}.`,
      "POLICY_UNREADABLE",
      { cause: e },
    );
  }
  return parsePolicy(text, file);
}
