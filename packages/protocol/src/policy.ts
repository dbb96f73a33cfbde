// A tool's policy as a capability manifest recommends it and the wire carries it
// (`ToolDef.recommended_policy`): the capability host reads it, the Shield judges by it.

/** Every tool policy, in the order docs and messages list them. */
export const MANIFEST_POLICIES = ["allow", "ask", "block"] as const;

/** A manifest's `recommended_policy` for a tool; `ask` means the Shield escalates. */
export type ManifestPolicy = (typeof MANIFEST_POLICIES)[number];

export function isManifestPolicy(v: unknown): v is ManifestPolicy {
  return (MANIFEST_POLICIES as readonly unknown[]).includes(v);
}
