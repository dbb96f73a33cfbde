/** The policies shipped in the package (`policies/<name>.yaml`). */
import { fileURLToPath } from "node:url";

export const BUILTIN_POLICIES = ["default", "strict", "permissive"] as const;
export type BuiltinPolicy = (typeof BUILTIN_POLICIES)[number];

export function isBuiltinPolicy(name: string): name is BuiltinPolicy {
  return (BUILTIN_POLICIES as readonly string[]).includes(name);
}

/** Absolute path of a policy shipped in the package. */
export function builtinPolicyPath(name: BuiltinPolicy): string {
  return fileURLToPath(new URL(`../../policies/${name}.yaml`, import.meta.url));
}
