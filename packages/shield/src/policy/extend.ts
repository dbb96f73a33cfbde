/**
 * `extends: <built-in policy>`: a policy file that adds to a shipped policy instead of replacing
 * it. The file's rules are tried first; the base's follow, so its block rules still win over any
 * allow (a matching block rule always decides). A file rule with the id of a base rule replaces
 * that rule. Defaults, detectors and semantics of the file come before the base's; what the file
 * does not set (unknown_tool, rate_limit, cache) is the base's.
 */
import type { Policy } from "./types.js";

/** Which top-level settings the extending file gave itself. */
export interface OwnSettings {
  unknownTool: boolean;
  rateLimit: boolean;
  cache: boolean;
}

export function extendPolicy(own: Policy, base: Policy, set: OwnSettings): Policy {
  const replaced = new Set(own.rules.map((r) => r.id));
  return {
    ...own,
    extends: base.name,
    rules: [...own.rules, ...base.rules.filter((r) => !replaced.has(r.id))],
    unknownTool: set.unknownTool ? own.unknownTool : base.unknownTool,
    toolDefaults: [...own.toolDefaults, ...base.toolDefaults],
    rateLimit: set.rateLimit ? own.rateLimit : base.rateLimit,
    cacheTtlMs: set.cache ? own.cacheTtlMs : base.cacheTtlMs,
    detectors: {
      disable: [...new Set([...base.detectors.disable, ...own.detectors.disable])],
      severity: { ...base.detectors.severity, ...own.detectors.severity },
    },
    semantics: [...own.semantics, ...base.semantics],
  };
}
