// The tool definitions the model is given: a capability tool's, load_tools' own, and the groups
// a session has loaded (load_tools adds to them; a session idle long enough gets them back from
// its history).
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ToolDefSchema } from "@palisade/protocol/types";
import type { MessageRecord, ToolSpec } from "../ports.js";
import type { CallEnv } from "./scope.js";

export type ToolDefInit = MessageInitShape<typeof ToolDefSchema>;

export const LOAD_TOOLS = "load_tools";

export function loadToolsDef(groups: readonly string[]): ToolDefInit {
  return {
    name: LOAD_TOOLS,
    description:
      "Load groups of tools into this conversation before using them. Call it with the names of the groups you need; " +
      "their tools become available for the rest of the session.",
    parametersJson: JSON.stringify({
      type: "object",
      properties: {
        groups: {
          type: "array",
          items: { type: "string", ...(groups.length > 0 ? { enum: groups } : {}) },
          minItems: 1,
        },
      },
      required: ["groups"],
      additionalProperties: false,
    }),
    group: "",
  };
}

/** Definitions by the catalog's spec objects, which stay the same while the catalog does. */
const defs = new WeakMap<ToolSpec, ToolDefInit>();

export function toolDef(spec: ToolSpec): ToolDefInit {
  let def = defs.get(spec);
  if (!def) {
    def = {
      name: spec.name,
      description: spec.description,
      parametersJson: JSON.stringify(spec.parameters),
      group: spec.capabilityId,
      terminalOnSuccess: spec.terminalOnSuccess,
    };
    defs.set(spec, def);
  }
  return def;
}

/** Tool definitions of the given groups, in catalog order. */
export function toolDefsOf(env: Pick<CallEnv, "host">, groups: ReadonlySet<string> | readonly string[]): ToolDefInit[] {
  const wanted = new Set(groups);
  return env.host
    .catalog()
    .filter((t) => wanted.has(t.capabilityId))
    .map(toolDef);
}

export function loadedGroupsOf(env: Pick<CallEnv, "loadedGroups">, sessionId: string): Set<string> {
  let set = env.loadedGroups.get(sessionId);
  if (!set) env.loadedGroups.set(sessionId, (set = new Set()));
  return set;
}

/**
 * The session's loaded groups. When they were dropped (the session was idle), they are the groups
 * of the tools its history called; a group loaded but never used is loaded again by the model.
 */
export function restoreLoadedGroups(
  env: Pick<CallEnv, "host" | "loadedGroups">,
  sessionId: string,
  messages: readonly MessageRecord[],
): Set<string> {
  if (env.loadedGroups.has(sessionId) || messages.length === 0) return loadedGroupsOf(env, sessionId);
  const groups = new Set(env.host.groups().map((g) => g.name));
  const found = new Set<string>();
  for (const m of messages) {
    for (const c of m.toolCalls) {
      const at = c.toolName.indexOf("__");
      const resolved = at > 0 ? undefined : env.host.resolve(c.toolName);
      const group =
        at > 0 ? c.toolName.slice(0, at) : resolved && "tool" in resolved ? resolved.tool.capabilityId : undefined;
      if (group !== undefined && groups.has(group)) found.add(group);
    }
  }
  env.loadedGroups.set(sessionId, found);
  return found;
}
