// One tool call, end to end: resolve → validate → OTR gate → Shield → approval → invoke
// (artifacts and credentials are the host's business) → result → record → events. The one path
// every call takes, whoever proposed it.
import { PipelineEventType } from "@palisade/protocol/pipeline";
import type { ToolHost, ToolSpec, VerdictRecord } from "../ports.js";
import { approvalActor, askUser, refusalOf } from "./approval.js";
import { shieldInput } from "./context.js";
import { invoke } from "./invoke.js";
import { withLoadTools } from "./load-tools.js";
import { writePreview } from "./preview.js";
import { CallRecord } from "./record.js";
import type { CallEnv, CallScope, ToolCall, ToolResult } from "./scope.js";

const T = PipelineEventType;

/** Runs one call; never throws (failures come back as error results the model can act on). */
export async function runToolCall(scope: CallScope, call: ToolCall): Promise<ToolResult> {
  const c = new CallRecord(scope, call);
  scope.turn.toolCalls.push(c.record);
  scope.env.audit?.step(scope.turn.session, "proposal", call.callId, scope.proposer ?? "agent", {
    messageId: scope.turn.messageId,
    toolName: call.toolName,
    argumentsJson: call.argumentsJson,
  });
  try {
    return await pipeline(c);
  } catch (err) {
    scope.env.log(
      `tool call ${call.callId} (${call.toolName}) failed inside the Engine: ${(err as Error).stack ?? String(err)}`,
    );
    return c.deliver(`Internal error while running ${call.toolName}: ${(err as Error).message}`, true, {
      error: { code: "internal" },
    });
  }
}

async function pipeline(call: CallRecord): Promise<ToolResult> {
  const { turn, record } = call;
  const { env } = call.scope;
  const host = hostOf(env);
  // A capability still in its first start (an MCP server the Engine did not wait for) is waited
  // for, bounded by its start timeout and the turn: its tools are not in the catalog yet.
  const group = call.call.toolName.split("__")[0];
  if (group && host.whenStarted) await host.whenStarted([group], turn.signal);
  const resolved = host.resolve(call.call.toolName);
  if ("error" in resolved) return call.deliver(resolved.error, true, { error: { code: "unknown_tool" } });
  const tool = resolved.tool;
  record.toolName = tool.name;

  let args: unknown;
  try {
    args = call.call.argumentsJson.trim() === "" ? {} : JSON.parse(call.call.argumentsJson);
  } catch (err) {
    return call.deliver(
      `The arguments of ${record.toolName} are not valid JSON (${(err as Error).message}). Send a JSON object.`,
      true,
      { error: { code: "invalid_arguments" } },
    );
  }
  const invalid = env.validator.validate(record.toolName, tool.parameters, args);
  if (invalid)
    return call.deliver(`Invalid arguments: ${invalid}. Fix them and call the tool again.`, true, {
      error: { code: "invalid_arguments" },
    });

  if (turn.otr) {
    const policy = env.shield.effectivePolicy(tool.name, tool.policy);
    const writes = writesFiles(env, tool);
    if (policy !== "allow" || writes) {
      const reason = writes
        ? `${tool.name} is not available off the record (it writes files, and an off-the-record session leaves nothing on disk)`
        : `${tool.name} is not available off the record (its policy is "${policy}"; only tools allowed by default run in OTR sessions)`;
      call.announce();
      call.emit({ eventType: T.OTR_BLOCKED, otrBlocked: { callId: record.callId, toolName: tool.name, reason } });
      return call.deliver(`Refused: ${reason}. Tell the user, or answer without this tool.`, true, {
        error: { code: "otr_refused" },
      });
    }
  }

  const verdict = await judge(call, tool);
  record.verdict = verdict;
  env.audit?.step(turn.session, "verdict", record.callId, "shield", { toolName: record.toolName, ...verdict });
  // A file write's diff for the approval and the card; not when a detector or the judge raised a
  // concern (the file may be one that should not be shown or stored in the history).
  if (verdict.decision !== "block" && (verdict.decision === "allow" || verdict.tier === 0)) {
    call.preview = await writePreview(tool, args, turn.session.workspace);
  }
  if (verdict.decision !== "allow") call.announce();
  if (verdict.decision === "block") {
    return call.deliver(
      `The Shield blocked this call to ${record.toolName}: ${verdict.reason}. Do not retry it; tell the user what you wanted to do and why it was refused.`,
      true,
      { error: { code: "blocked" } },
    );
  }
  if (verdict.decision === "escalate") {
    const answer = await askUser(call, verdict, tool);
    record.approval = answer.outcome;
    const { outcome, by, reason } = answer;
    env.audit?.step(turn.session, "approval", record.callId, approvalActor(answer), {
      toolName: record.toolName,
      decision: outcome,
      ...(by ? { answeredBy: by } : {}),
      ...(reason ? { reason } : {}),
    });
    const why = refusalOf(answer);
    if (why !== undefined)
      return call.deliver(
        `${why} (${record.toolName}). Do not retry it; continue without it or ask the user what to do.`,
        true,
        { error: { code: "declined" } },
      );
  }
  if (turn.signal.aborted)
    return call.deliver("The turn was cancelled before the tool ran.", true, { error: { code: "cancelled" } });

  const result = await invoke(call, hostOf(env), tool, args);
  if (result.ran && !result.isError) observeResult(call, tool, result.content);
  return result;
}

/** The result is labelled where it came from, for the Shield's judgment of later calls. */
function observeResult(call: CallRecord, tool: ToolSpec, content: string): void {
  const { record, turn } = call;
  const trust = call.scope.env.shield.observe?.({
    sessionId: turn.session.id,
    kind: "tool-result",
    text: content,
    callId: record.callId,
    toolName: tool.name,
    capabilityId: tool.capabilityId,
    ...(tool.builtin === true ? { builtin: true } : {}),
    argumentsJson: record.argumentsJson,
    toolSchema: tool.parameters,
    ...(tool.description ? { toolDescription: tool.description } : {}),
    ...(tool.semantics ? { toolSemantics: tool.semantics } : {}),
    workspace: turn.session.workspace,
    credentialPath: record.verdict?.ruleIds.some((r) => r.startsWith("cred.")) ?? false,
  });
  // stored with the call: a resumed session labels its history as it was delivered
  if (trust !== undefined) record.resultTrust = trust;
}

/** The env's host with load_tools added, made once per host and session map. */
const hosts = new WeakMap<ToolHost, { groups: CallEnv["loadedGroups"]; host: ToolHost }>();
function hostOf(env: CallEnv): ToolHost {
  const known = hosts.get(env.host);
  if (known && known.groups === env.loadedGroups) return known.host;
  const host = withLoadTools(env.host, env.loadedGroups);
  hosts.set(env.host, { groups: env.loadedGroups, host });
  return host;
}

/** Tool kinds whose effect is a file on disk: refused off the record. */
const DISK_WRITING = new Set(["file-write", "file-delete", "file-move", "file-copy", "document-write"]);

/**
 * Whether a tool writes, moves or deletes files, as the Shield reads its semantics (declared,
 * else inferred from its schema); an invalid declared block counts as writing.
 */
function writesFiles(env: CallEnv, tool: ToolSpec): boolean {
  if (!env.shield.toolSemantics)
    return typeof tool.semantics?.["kind"] === "string" && DISK_WRITING.has(tool.semantics["kind"]);
  try {
    return env.shield.toolSemantics({
      toolName: tool.name,
      toolSchema: tool.parameters,
      ...(tool.semantics ? { toolSemantics: tool.semantics } : {}),
      ...(tool.description ? { toolDescription: tool.description } : {}),
    }).writesFiles;
  } catch {
    return true;
  }
}

async function judge(call: CallRecord, tool: ToolSpec): Promise<VerdictRecord> {
  try {
    return await call.scope.env.shield.evaluate(shieldInput(call.scope, call.record, tool), call.turn.signal);
  } catch (err) {
    return {
      decision: "block",
      tier: 0,
      confidence: 1,
      reason: `the Shield failed (failing closed): ${(err as Error).message}`,
      ruleIds: ["engine.fail_closed"],
      evaluationUs: 0,
    };
  }
}
