// load_tools as a tool host: it adds capability groups to the session, so their tools come with
// the next model call. Calls to it take the same path as any tool's (Shield, approval, record);
// its host answers them without a capability.
import type { InvokeOutcome, ToolHost, ToolSpec } from "../ports.js";
import { LOAD_TOOLS, loadedGroupsOf, toolDefsOf } from "./tool-defs.js";

export const LOAD_TOOLS_SPEC: ToolSpec = {
  name: LOAD_TOOLS,
  capabilityId: LOAD_TOOLS,
  description: "Load groups of tools into this conversation before using them.",
  parameters: {
    type: "object",
    properties: { groups: { type: "array", items: { type: "string" } } },
    required: ["groups"],
  },
  policy: "allow",
  terminalOnSuccess: false,
  runsNoPrograms: true,
  builtin: true,
};

async function loadTools(
  host: ToolHost,
  loadedGroups: Map<string, Set<string>>,
  opts: { sessionId: string; signal: AbortSignal },
  args: { groups: string[] },
): Promise<InvokeOutcome> {
  const { sessionId } = opts;
  // A group asked for while its server is still starting: its tools, once it is up.
  if (host.whenStarted) await host.whenStarted(args.groups, opts.signal);
  const groups = host.groups();
  const known = new Set(groups.map((g) => g.name));
  const down = new Map(groups.flatMap((g) => (g.down ? [[g.name, g.down] as const] : [])));
  const ok = args.groups.filter((g) => known.has(g));
  const unknown = args.groups.filter((g) => !known.has(g));
  const loaded = loadedGroupsOf({ loadedGroups }, sessionId);
  // A group that is down is loaded too: its tools come with the next turn once it is back.
  for (const g of ok) loaded.add(g);
  const up = ok.filter((g) => !down.has(g));
  const names = toolDefsOf({ host }, up).map((t) => t.name);
  const parts = [up.length > 0 ? `Loaded ${up.join(", ")}: ${names.join(", ")}.` : "No group loaded."];
  for (const g of ok) if (down.has(g)) parts.push(`Group ${g} is ${down.get(g) ?? "down"}.`);
  if (unknown.length > 0) parts.push(`Unknown groups: ${unknown.join(", ")}. Available: ${[...known].join(", ")}.`);
  return { ok: up.length > 0, content: parts.join(" "), artifacts: [] };
}

/** `inner` with load_tools added (it lists no tool of its own: the Agent offers load_tools itself). */
export function withLoadTools(inner: ToolHost, loadedGroups: Map<string, Set<string>>): ToolHost {
  return {
    catalog: () => inner.catalog(),
    groups: () => inner.groups(),
    resolve: (name) => (name === LOAD_TOOLS ? { tool: LOAD_TOOLS_SPEC } : inner.resolve(name)),
    invoke: (tool, args, opts) =>
      tool === LOAD_TOOLS_SPEC
        ? loadTools(inner, loadedGroups, opts, args as { groups: string[] })
        : inner.invoke(tool, args, opts),
    ...(inner.whenStarted
      ? {
          whenStarted: (groups: readonly string[], signal: AbortSignal, onWait?: (groups: string[]) => void) =>
            inner.whenStarted?.(groups, signal, onWait) ?? Promise.resolve(),
        }
      : {}),
    prompts: (groups) => inner.prompts(groups),
    status: () => inner.status(),
    artifact: (sessionId, artifactId) => inner.artifact(sessionId, artifactId),
    ...(inner.deleteSessionArtifacts
      ? {
          deleteSessionArtifacts: (sessionId: string) =>
            inner.deleteSessionArtifacts?.(sessionId) ?? Promise.resolve(0),
        }
      : {}),
    close: () => inner.close(),
  };
}
