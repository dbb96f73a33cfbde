// load_tools: adds capability groups to the session, so their tools come with the next model call.
import type { CallEnv, ToolResult } from "./scope.js";
import type { CallRecord } from "./record.js";
import { loadedGroupsOf, toolDefsOf } from "../turns/engine-tools.js";

export const loadToolsSchema = {
  type: "object",
  properties: { groups: { type: "array", items: { type: "string" } } },
  required: ["groups"],
};

export function runLoadTools(call: CallRecord, args: { groups: string[] }): ToolResult {
  const env: CallEnv = call.scope.env;
  const groups = env.host.groups();
  const known = new Set(groups.map((g) => g.name));
  const down = new Map(groups.flatMap((g) => (g.down ? [[g.name, g.down] as const] : [])));
  const ok = args.groups.filter((g) => known.has(g));
  const unknown = args.groups.filter((g) => !known.has(g));
  const loaded = loadedGroupsOf(env, call.turn.session.id);
  // A group that is down is loaded too: its tools come with the next turn once it is back.
  for (const g of ok) loaded.add(g);
  const up = ok.filter((g) => !down.has(g));
  const names = toolDefsOf(env, up).map((t) => t.name);
  const parts = [up.length > 0 ? `Loaded ${up.join(", ")}: ${names.join(", ")}.` : "No group loaded."];
  for (const g of ok) if (down.has(g)) parts.push(`Group ${g} is ${down.get(g) ?? "down"}.`);
  if (unknown.length > 0) parts.push(`Unknown groups: ${unknown.join(", ")}. Available: ${[...known].join(", ")}.`);
  return call.deliver(parts.join(" "), up.length === 0, { ran: true, ...(up.length === 0 ? { error: { code: "no_group_loaded" } } : {}) });
}
