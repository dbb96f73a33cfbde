// The Agent's ToolDefsRequest (it asks for groups of tools itself): the Shield judges the load
// like a load_tools call, and the definitions of the groups it allows go back on the stream.
import type { ToolDefsRequest } from "@palisade/protocol/pipeline";
import type { VerdictRecord } from "../ports.js";
import { LOAD_TOOLS, loadedGroupsOf, toolDefsOf } from "../calls/tool-defs.js";
import type { TurnEnv } from "./env.js";
import type { Turn } from "../history/turn.js";

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
      decision: "block",
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
    if (verdict.decision !== "allow") {
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
