// Conversions between the Engine's plain records and protobuf messages. Pure.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { ApprovalDecision, ElicitationAction, SessionMode, VerdictDecision } from "@palisade/protocol/types";
import type {
  ElicitationAnswer,
  ArtifactRefSchema,
  ChatMessageSchema,
  SessionInfoSchema,
  ToolCallRecordSchema,
  TokenUsageSchema,
} from "@palisade/protocol/types";
import { SessionSort } from "@palisade/protocol/pipeline";
import type {
  ArtifactInfo,
  Decision,
  FormAnswer,
  MessageRecord,
  Mode,
  SessionRecord,
  SessionSortKey,
  ToolCallRecordRow,
  Usage,
  VerdictRecord,
} from "../ports.js";

export function modeFromProto(mode: SessionMode): Mode {
  if (mode === SessionMode.OTR) return "otr";
  if (mode === SessionMode.HEARTBEAT) return "heartbeat";
  return "normal";
}

export function modeToProto(mode: Mode): SessionMode {
  return mode === "otr" ? SessionMode.OTR : mode === "heartbeat" ? SessionMode.HEARTBEAT : SessionMode.NORMAL;
}

export function decisionToProto(d: Decision): VerdictDecision {
  return d === "allow" ? VerdictDecision.ALLOW : d === "block" ? VerdictDecision.BLOCK : VerdictDecision.ESCALATE;
}

export function decisionFromProto(d: VerdictDecision): Decision | undefined {
  if (d === VerdictDecision.ALLOW) return "allow";
  if (d === VerdictDecision.BLOCK) return "block";
  if (d === VerdictDecision.ESCALATE) return "escalate";
  return undefined;
}

export function approvalFromProto(
  d: ApprovalDecision,
): "allow_once" | "allow_session" | "deny" | "unattended" | undefined {
  if (d === ApprovalDecision.ALLOW_ONCE) return "allow_once";
  if (d === ApprovalDecision.ALLOW_SESSION) return "allow_session";
  if (d === ApprovalDecision.DENY) return "deny";
  if (d === ApprovalDecision.UNATTENDED) return "unattended";
  return undefined;
}

/** An elicitation form's answer; undefined when the client sent none (or no action). */
export function formAnswerFromProto(a: ElicitationAnswer | undefined): FormAnswer | undefined {
  if (a?.action === ElicitationAction.ACCEPT) return { action: "accept", contentJson: a.contentJson };
  if (a?.action === ElicitationAction.DECLINE) return { action: "decline", contentJson: "" };
  if (a?.action === ElicitationAction.CANCEL) return { action: "cancel", contentJson: "" };
  return undefined;
}

export function approvalToProto(o: string): ApprovalDecision {
  if (o === "allow_once") return ApprovalDecision.ALLOW_ONCE;
  if (o === "allow_session" || o === "session") return ApprovalDecision.ALLOW_SESSION;
  if (o === "deny" || o === "timeout" || o === "cancelled") return ApprovalDecision.DENY;
  if (o === "unattended") return ApprovalDecision.UNATTENDED;
  return ApprovalDecision.UNSPECIFIED;
}

export function sortFromProto(s: SessionSort): SessionSortKey {
  switch (s) {
    case SessionSort.UPDATED_ASC:
      return "updated_asc";
    case SessionSort.CREATED_DESC:
      return "created_desc";
    case SessionSort.CREATED_ASC:
      return "created_asc";
    case SessionSort.TITLE:
      return "title";
    default:
      return "updated_desc";
  }
}

export const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

export function addUsage(a: Usage, b: Partial<Usage> | undefined): Usage {
  return {
    inputTokens: a.inputTokens + (b?.inputTokens ?? 0),
    outputTokens: a.outputTokens + (b?.outputTokens ?? 0),
    cacheReadTokens: a.cacheReadTokens + (b?.cacheReadTokens ?? 0),
    cacheWriteTokens: a.cacheWriteTokens + (b?.cacheWriteTokens ?? 0),
  };
}

export function usageToProto(u: Usage): MessageInitShape<typeof TokenUsageSchema> {
  return { ...u };
}

export function sessionToProto(s: SessionRecord): MessageInitShape<typeof SessionInfoSchema> {
  return {
    id: s.id,
    title: s.title,
    mode: modeToProto(s.mode),
    createdAtUnixMs: BigInt(s.createdAt),
    updatedAtUnixMs: BigInt(s.updatedAt),
    messageCount: s.messageCount,
    workspace: s.workspace,
    model: s.model,
    usage: usageToProto(s.usage),
  };
}

export function artifactToProto(a: ArtifactInfo): MessageInitShape<typeof ArtifactRefSchema> {
  return { artifactId: a.artifactId, filename: a.filename, mimeType: a.mimeType, sizeBytes: BigInt(a.sizeBytes) };
}

export function verdictToProto(callId: string, toolName: string, v: VerdictRecord) {
  return {
    callId,
    toolName,
    decision: decisionToProto(v.decision),
    tier: v.tier,
    confidence: v.confidence,
    reason: v.reason,
    ruleIds: v.ruleIds,
    evaluationUs: BigInt(Math.round(v.evaluationUs)),
  };
}

export function toolCallToProto(c: ToolCallRecordRow): MessageInitShape<typeof ToolCallRecordSchema> {
  return {
    callId: c.callId,
    toolName: c.toolName,
    argumentsJson: c.argumentsJson,
    ...(c.verdict ? { verdict: verdictToProto(c.callId, c.toolName, c.verdict) } : {}),
    approval: c.approval,
    result: c.result,
    isError: c.isError,
    durationMs: BigInt(c.durationMs),
    artifacts: c.artifacts.map(artifactToProto),
    resultTrust: c.resultTrust ?? "",
    textOffset: c.textOffset ?? 0,
  };
}

export function messageToProto(m: MessageRecord): MessageInitShape<typeof ChatMessageSchema> {
  return {
    id: m.id,
    sessionId: m.sessionId,
    role: m.role,
    content: m.content,
    createdAtUnixMs: BigInt(m.createdAt),
    toolCalls: m.toolCalls.map(toolCallToProto),
    ...(m.usage ? { usage: usageToProto(m.usage) } : {}),
    seq: BigInt(m.seq),
  };
}

/** A short one-line summary of a tool result for events. */
export function summarize(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
