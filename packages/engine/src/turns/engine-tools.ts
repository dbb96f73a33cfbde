// Tools the Engine itself provides (load_tools now; spawn_agent & co. with sub-agents). They go
// through the Shield like any capability tool.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ToolDefSchema } from "@palisade/protocol/types";
import type { ToolDefsRequest } from "@palisade/protocol/pipeline";
import type { MessageRecord, ToolSpec, VerdictRecord } from "../ports.js";
import type { TurnEnv } from "./env.js";
import type { Turn } from "./turn.js";

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
export function toolDefsOf(env: Pick<TurnEnv, "host">, groups: ReadonlySet<string> | readonly string[]): ToolDefInit[] {
  const wanted = new Set(groups);
  return env.host
    .catalog()
    .filter((t) => wanted.has(t.capabilityId))
    .map(toolDef);
}

export function loadedGroupsOf(env: Pick<TurnEnv, "loadedGroups">, sessionId: string): Set<string> {
  let set = env.loadedGroups.get(sessionId);
  if (!set) env.loadedGroups.set(sessionId, (set = new Set()));
  return set;
}

/**
 * The session's loaded groups. When they were dropped (the session was idle), they are the groups
 * of the tools its history called; a group loaded but never used is loaded again by the model.
 */
export function restoreLoadedGroups(
  env: Pick<TurnEnv, "host" | "loadedGroups">,
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

/** Shield check for load_tools; fails closed. */
async function judgeLoad(
  env: TurnEnv,
  turn: Turn | undefined,
  sessionId: string,
  requestId: string,
  groups: readonly string[],
): Promise<VerdictRecord> {
  try {
    return await env.shield.evaluate({
      callId: requestId,
      toolName: LOAD_TOOLS,
      argumentsJson: JSON.stringify({ groups }),
      sessionId,
      mode: turn?.session.mode ?? "normal",
      capabilityId: LOAD_TOOLS,
      manifestPolicy: "allow",
    });
  } catch (err) {
    return {
      decision: "BLOCK",
      tier: 0,
      confidence: 1,
      reason: `Shield error (failing closed): ${(err as Error).message}`,
      ruleIds: [],
      evaluationUs: 0,
    };
  }
}

/** Answers a ToolDefsRequest with a ToolDefsDelivery. Blocked or unknown groups are listed as unknown. */
export async function answerToolDefsRequest(env: TurnEnv, turn: Turn | undefined, req: ToolDefsRequest): Promise<void> {
  // A group whose server is still starting (the Engine did not wait for it): its tools, once it is up.
  await env.host.whenStarted?.(req.groups, turn?.signal ?? AbortSignal.abort(), (ids) =>
    env.log(`load_tools: waiting for ${ids.join(", ")} to start`),
  );
  const known = new Set(env.host.groups().map((g) => g.name));
  const requested = [...new Set(req.groups)];
  const unknown = requested.filter((g) => !known.has(g));
  let accepted = requested.filter((g) => known.has(g));
  if (accepted.length > 0) {
    const verdict = await judgeLoad(env, turn, req.sessionId, req.requestId, accepted);
    if (verdict.decision !== "ALLOW") {
      env.log(`load_tools ${accepted.join(",")} refused by the Shield: ${verdict.reason}`);
      unknown.push(...accepted);
      accepted = [];
    }
  }
  const loaded = loadedGroupsOf(env, req.sessionId);
  for (const g of accepted) loaded.add(g);
  env.link.send({
    directive: {
      case: "toolDefs",
      value: {
        tools: toolDefsOf(env, accepted),
        sessionId: req.sessionId,
        requestId: req.requestId,
        unknownGroups: unknown,
        loadedGroups: [...loaded],
      },
    },
  });
}
