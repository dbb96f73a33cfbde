// One call in flight: its record, the client events it owes (each once, in order) and its result.
import { PipelineEventType } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { artifactToProto, summarize, verdictToProto } from "../history/convert.js";
import type { ToolCallRecordRow } from "../ports.js";
import { emitFor } from "./scope.js";
import type { CallEventInit, CallScope, ToolCall, ToolResult } from "./scope.js";

const T = PipelineEventType;

export interface DeliverOptions {
  terminal?: boolean;
  /** Why it failed: a code, and a message clients show (default: the content, summarized). */
  error?: { code: string; message?: string };
  ran?: boolean;
}

export class CallRecord {
  readonly record: ToolCallRecordRow;
  readonly emit: (init: CallEventInit) => PipelineEvent;
  result: ToolResult | undefined;
  private proposedSent = false;
  private verdictSent = false;
  /** Client events of an allowed call that wait for the next turn of the event loop (see startSoon). */
  private pendingStart: (() => void) | undefined;
  /** What the call would change (a file write's diff), for clients. */
  preview = "";

  constructor(
    readonly scope: CallScope,
    readonly call: ToolCall,
  ) {
    this.emit = emitFor(scope);
    this.record = {
      callId: call.callId,
      toolName: call.toolName,
      argumentsJson: call.argumentsJson,
      approval: "",
      result: "",
      isError: false,
      durationMs: 0,
      artifacts: [],
      startedAt: Date.now(),
      // The text before the call is what the turn streamed so far: its place in the stored answer.
      textOffset: scope.turn.text.length,
    };
  }

  get turn(): CallScope["turn"] {
    return this.scope.turn;
  }

  /**
   * Emits ACTION_PROPOSED, then SHIELD_VERDICT once there is one, each once. An allowed call
   * announces itself after its capability call has left, so building and writing these client
   * events is not on the call's critical path; refusals and approvals announce before they act.
   */
  announce(): void {
    const { call, record } = this;
    if (!this.proposedSent) {
      this.proposedSent = true;
      this.emit({
        eventType: T.ACTION_PROPOSED,
        actionProposed: {
          callId: call.callId,
          toolName: call.toolName,
          argumentsJson: call.argumentsJson,
          preview: this.preview,
        },
      });
    }
    if (record.verdict && !this.verdictSent) {
      this.verdictSent = true;
      this.emit({
        eventType: T.SHIELD_VERDICT,
        shieldVerdict: verdictToProto(record.callId, record.toolName, record.verdict),
      });
    }
  }

  /**
   * Emits `events` (ACTION_PROPOSED, SHIELD_VERDICT, ACTION_STARTED of an allowed call) once the
   * current turn of the event loop is over: the capability request it just made is flushed to
   * its socket first, and building and writing client events never delays it. deliver() emits
   * them first if they are still waiting, so clients always see them before ACTION_COMPLETED.
   */
  startSoon(events: () => void): void {
    this.pendingStart = events;
    setImmediate(() => this.flushStart());
  }

  /** Emits the waiting start events now, if any (deliver, and progress chunks, which follow ACTION_STARTED). */
  flushStart(): void {
    const events = this.pendingStart;
    this.pendingStart = undefined;
    if (events && this.turn.state !== "done") events();
  }

  /** Settles the result (once), records it, hands it to the scope, emits ACTION_COMPLETED. */
  deliver(content: string, isError: boolean, opts: DeliverOptions = {}): ToolResult {
    if (this.result) return this.result;
    const r = this.record;
    r.result = content;
    r.isError = isError;
    r.durationMs = Date.now() - r.startedAt;
    this.result = {
      callId: r.callId,
      content,
      isError,
      terminal: Boolean(opts.terminal) && !isError,
      ran: opts.ran ?? false,
      ...(isError
        ? { error: { code: opts.error?.code ?? "tool_error", message: opts.error?.message ?? summarize(content) } }
        : {}),
    };
    if (this.turn.state === "done") return this.result; // the turn ended (cancel, crash): nobody is waiting
    this.flushStart();
    this.announce();
    // Whoever waits on the result (the turn's critical path) first, then the clients' notification.
    this.scope.onResult?.(this.result);
    this.emit({
      eventType: T.ACTION_COMPLETED,
      actionCompleted: {
        callId: r.callId,
        toolName: r.toolName,
        success: !isError,
        resultSummary: summarize(content),
        error: this.result.error?.message ?? "",
        durationMs: BigInt(r.durationMs),
        artifacts: r.artifacts.map(artifactToProto),
        argumentsJson: r.argumentsJson,
      },
    });
    return this.result;
  }
}
