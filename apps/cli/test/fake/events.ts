import { create } from "@bufbuild/protobuf";
import { PipelineEventSchema, PipelineEventType } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { ApprovalDecision, VerdictDecision } from "@palisade/protocol/types";

type Init = MessageInitShape<typeof PipelineEventSchema>;

/** Builders for realistic PipelineEvents (shared by reducer tests, the fake Engine and the bench). */
export class EventFactory {
  seq = 0n;
  constructor(
    public sessionId = "s-1",
    public messageId = "m-1",
  ) {}

  private ev(eventType: PipelineEventType, init: Init): PipelineEvent {
    this.seq += 1n;
    return create(PipelineEventSchema, {
      sessionId: this.sessionId,
      messageId: this.messageId,
      eventType,
      timestampUnixMs: BigInt(Date.now()),
      seq: this.seq,
      ...init,
    });
  }

  accepted(title = "Test session", otr = false): PipelineEvent {
    return this.ev(PipelineEventType.MESSAGE_ACCEPTED, {
      messageAccepted: {
        session: { id: this.sessionId, title, mode: otr ? 2 : 1, model: "gpt-test" },
        userMessageId: `${this.messageId}-u`,
      },
    });
  }
  token(text: string, subAgentName = ""): PipelineEvent {
    return this.ev(PipelineEventType.LLM_TOKEN, { llmToken: { text, subAgentName } });
  }
  proposed(callId: string, toolName: string, args: object, subAgentName = ""): PipelineEvent {
    return this.ev(PipelineEventType.ACTION_PROPOSED, {
      actionProposed: { callId, toolName, argumentsJson: JSON.stringify(args), subAgentName },
    });
  }
  verdict(
    callId: string,
    toolName: string,
    decision: "allow" | "block" | "escalate",
    tier: number,
    reason: string,
  ): PipelineEvent {
    const d =
      decision === "allow"
        ? VerdictDecision.ALLOW
        : decision === "block"
          ? VerdictDecision.BLOCK
          : VerdictDecision.ESCALATE;
    return this.ev(PipelineEventType.SHIELD_VERDICT, {
      shieldVerdict: { callId, toolName, decision: d, tier, reason, confidence: 0.9, ruleIds: [`rule.${decision}`] },
    });
  }
  approvalNeeded(
    approvalId: string,
    callId: string,
    toolName: string,
    args: object,
    reason: string,
    deadlineMs: number,
  ): PipelineEvent {
    return this.ev(PipelineEventType.APPROVAL_NEEDED, {
      approvalNeeded: {
        approvalId,
        callId,
        toolName,
        argumentsJson: JSON.stringify(args),
        reason,
        deadlineUnixMs: BigInt(deadlineMs),
        tier: 3,
        ruleIds: ["ask.shell"],
      },
    });
  }
  /** An MCP server's question during the call `callId` (elicitation, form mode), as the Engine sends it. */
  elicitation(
    approvalId: string,
    callId: string,
    toolName: string,
    capabilityId: string,
    message: string,
    schema: object,
    deadlineMs: number,
  ): PipelineEvent {
    return this.ev(PipelineEventType.APPROVAL_NEEDED, {
      approvalNeeded: {
        approvalId,
        callId,
        toolName,
        argumentsJson: "{}",
        reason: `MCP server ${capabilityId} asks during ${toolName}`,
        deadlineUnixMs: BigInt(deadlineMs),
        tier: 3,
        ruleIds: ["mcp:elicitation"],
        elicitation: { capabilityId, message, requestedSchemaJson: JSON.stringify(schema) },
      },
    });
  }
  approvalResolved(
    approvalId: string,
    callId: string,
    choice: "once" | "session" | "deny",
    by = "user",
  ): PipelineEvent {
    const decision =
      choice === "once"
        ? ApprovalDecision.ALLOW_ONCE
        : choice === "session"
          ? ApprovalDecision.ALLOW_SESSION
          : ApprovalDecision.DENY;
    return this.ev(PipelineEventType.APPROVAL_RESOLVED, {
      approvalResolved: { approvalId, callId, decision, resolvedBy: by },
    });
  }
  started(callId: string, toolName: string, summary = ""): PipelineEvent {
    return this.ev(PipelineEventType.ACTION_STARTED, { actionStarted: { callId, toolName, summary } });
  }
  progress(callId: string, text: string): PipelineEvent {
    return this.ev(PipelineEventType.ACTION_PROGRESS, { actionProgress: { callId, text } });
  }
  completed(
    callId: string,
    toolName: string,
    o: {
      success?: boolean;
      summary?: string;
      error?: string;
      durationMs?: number;
      artifacts?: { artifactId: string; filename: string; mimeType: string; sizeBytes: bigint }[];
    } = {},
  ): PipelineEvent {
    return this.ev(PipelineEventType.ACTION_COMPLETED, {
      actionCompleted: {
        callId,
        toolName,
        success: o.success ?? true,
        resultSummary: o.summary ?? "",
        error: o.error ?? "",
        durationMs: BigInt(o.durationMs ?? 12),
        artifacts: o.artifacts ?? [],
      },
    });
  }
  otrBlocked(callId: string, toolName: string, reason: string): PipelineEvent {
    return this.ev(PipelineEventType.OTR_BLOCKED, { otrBlocked: { callId, toolName, reason } });
  }
  complete(content: string, input = 100, output = 50): PipelineEvent {
    return this.ev(PipelineEventType.RESPONSE_COMPLETE, {
      responseComplete: {
        content,
        usage: { inputTokens: input, outputTokens: output },
        assistantMessageId: `${this.messageId}-a`,
      },
    });
  }
  error(code: string, message: string, recoverable = true): PipelineEvent {
    return this.ev(PipelineEventType.ERROR, { pipelineError: { code, message, recoverable } });
  }
  cancelled(reason = "cancelled by the user"): PipelineEvent {
    return this.ev(PipelineEventType.TURN_CANCELLED, { turnCancelled: { reason } });
  }
  subAgent(
    type: "spawned" | "progress" | "completed" | "failed",
    name: string,
    task: string,
    o: { llmCalls?: number; toolCalls?: number; elapsedMs?: number; result?: string; error?: string } = {},
  ): PipelineEvent {
    const t = {
      spawned: PipelineEventType.SUB_AGENT_SPAWNED,
      progress: PipelineEventType.SUB_AGENT_PROGRESS,
      completed: PipelineEventType.SUB_AGENT_COMPLETED,
      failed: PipelineEventType.SUB_AGENT_FAILED,
    }[type];
    const state = type === "spawned" || type === "progress" ? "running" : type;
    return this.ev(t, {
      subAgent: {
        name,
        task,
        state,
        llmCalls: o.llmCalls ?? 0,
        toolCalls: o.toolCalls ?? 0,
        elapsedMs: BigInt(o.elapsedMs ?? 0),
        resultExcerpt: o.result ?? "",
        error: o.error ?? "",
      },
    });
  }
}
