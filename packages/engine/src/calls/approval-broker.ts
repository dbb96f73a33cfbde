// Human approvals (Shield tier 3): one pending entry per escalated call; the first answer wins,
// the deadline denies, cancellation of the turn resolves it as cancelled.
import { randomUUID } from "node:crypto";
import type { ApprovalChoice, ApprovalOutcome, FormAnswer } from "../ports.js";

interface Pending {
  sessionId: string;
  callId: string;
  toolName: string;
  /** The effect class "allow for this session" grants; undefined: none (a destructive call, asked every time). */
  grantKey: string | undefined;
  deadline: number;
  settle: (outcome: ApprovalOutcome, by?: string, reason?: string, form?: FormAnswer) => void;
}

export interface ApprovalTicket {
  approvalId: string;
  deadline: number;
  outcome: Promise<ApprovalOutcome>;
  /** Which client credential answered (set with the outcome; undefined for timeouts and cancellations). */
  answeredBy: string | undefined;
  /** The reason given with the answer (a deny reason, or why no one could answer). */
  reason: string | undefined;
  /** An elicitation form's answer, when the client sent one. */
  form: FormAnswer | undefined;
}

export class ApprovalBroker {
  private readonly pending = new Map<string, Pending>();
  /** Action classes a user allowed for the rest of a session (never whole tools). */
  private readonly sessionGrants = new Map<string, Set<string>>();

  constructor(private readonly timeoutMs: () => number) {}

  isGrantedForSession(sessionId: string, grantKey: string): boolean {
    return this.sessionGrants.get(sessionId)?.has(grantKey) ?? false;
  }

  open(req: {
    sessionId: string;
    callId: string;
    toolName: string;
    grantKey?: string;
    signal: AbortSignal;
  }): ApprovalTicket {
    const approvalId = `apr_${randomUUID()}`;
    const deadline = Date.now() + this.timeoutMs();
    let settle!: (o: ApprovalOutcome, by?: string, reason?: string, form?: FormAnswer) => void;
    const ticket: ApprovalTicket = {
      approvalId,
      deadline,
      outcome: undefined as unknown as Promise<ApprovalOutcome>,
      answeredBy: undefined,
      reason: undefined,
      form: undefined,
    };
    ticket.outcome = new Promise<ApprovalOutcome>((resolve) => {
      const timer = setTimeout(() => settle("timeout"), Math.max(0, deadline - Date.now()));
      const onAbort = (): void => settle("cancelled");
      req.signal.addEventListener("abort", onAbort, { once: true });
      settle = (o, by, reason, form) => {
        if (!this.pending.delete(approvalId)) return; // first answer wins
        ticket.answeredBy = by;
        ticket.reason = reason;
        ticket.form = form;
        clearTimeout(timer);
        req.signal.removeEventListener("abort", onAbort);
        if (o === "allow_session" && req.grantKey !== undefined) this.grant(req.sessionId, req.grantKey);
        resolve(o);
      };
    });
    this.pending.set(approvalId, {
      sessionId: req.sessionId,
      callId: req.callId,
      toolName: req.toolName,
      grantKey: req.grantKey,
      deadline,
      settle,
    });
    if (req.signal.aborted) settle("cancelled");
    return ticket;
  }

  /**
   * Answers a pending approval; `by` names the client credential that answered (audit trail).
   * Returns why it was refused, or undefined when accepted.
   */
  resolve(
    approvalId: string,
    decision: ApprovalChoice,
    sessionId?: string,
    by?: string,
    reason?: string,
    form?: FormAnswer,
  ): string | undefined {
    const p = this.pending.get(approvalId);
    if (!p) return `approval ${approvalId} is not pending (unknown, already answered, timed out or cancelled)`;
    if (sessionId && sessionId !== p.sessionId) return `approval ${approvalId} belongs to another session`;
    p.settle(decision, by, reason?.trim() ? reason.trim().slice(0, 500) : undefined, form);
    return undefined;
  }

  pendingFor(sessionId: string): { approvalId: string; callId: string; toolName: string; deadline: number }[] {
    return [...this.pending.entries()]
      .filter(([, p]) => p.sessionId === sessionId)
      .map(([approvalId, p]) => ({ approvalId, callId: p.callId, toolName: p.toolName, deadline: p.deadline }));
  }

  forgetSession(sessionId: string): void {
    this.sessionGrants.delete(sessionId);
    for (const p of [...this.pending.values()]) if (p.sessionId === sessionId) p.settle("cancelled");
  }

  cancelAll(): void {
    for (const p of [...this.pending.values()]) p.settle("cancelled");
  }

  private grant(sessionId: string, grantKey: string): void {
    let set = this.sessionGrants.get(sessionId);
    if (!set) this.sessionGrants.set(sessionId, (set = new Set()));
    set.add(grantKey);
  }
}
