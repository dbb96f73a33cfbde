// An MCP server's question during a call (elicitation, form mode) goes to the client as an
// approval carrying the form; the client's answer (ResolveApproval over real gRPC) comes back to
// the capability as accept with the values, decline or cancel. The Engine checks the values
// against the requested schema again: what does not fit is declined, never passed on.
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalDecision, ElicitationAction } from "@palisade/protocol/types";
import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import type { Deadline } from "@palisade/capabilities";
import type { ElicitAnswer, ElicitHandler, InvokeOutcome, ToolSpec } from "../src/ports.js";
import { defaultConfig } from "@palisade/config";
import { FakeHost, TOOLS } from "./helpers/fake-host.js";
import { startHarness } from "./helpers/setup.js";
import type { Harness } from "./helpers/setup.js";

const ASK: ToolSpec = {
  name: "book__table",
  capabilityId: "book",
  description: "Books a table, asking the user for the details",
  policy: "allow",
  terminalOnSuccess: false,
  parameters: { type: "object", properties: {} },
};

const SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", title: "Your name" },
    guests: { type: "integer", minimum: 1, maximum: 12, default: 2 },
  },
  required: ["name"],
};

/** A capability that asks its user once per call (as an MCP server does) and reports the answer. */
class AskingHost extends FakeHost {
  readonly answers: ElicitAnswer[] = [];
  /** After the answer, work until the call is stopped (to see the deadline count again). */
  workAfter = false;
  /** What was left of the call's deadline as the host got it, and after the user's answer. */
  readonly left: { before?: number; after?: number }[] = [];
  constructor(
    private readonly schema: Record<string, unknown>,
    private readonly message = "Book a table?",
  ) {
    super();
  }
  override catalog(): ToolSpec[] {
    return [...TOOLS, ASK];
  }
  override resolve(name: string) {
    return name === ASK.name ? { tool: ASK } : super.resolve(name);
  }
  override async invoke(
    tool: ToolSpec,
    args: unknown,
    opts: { sessionId: string; workspace: string; signal: AbortSignal; elicit?: ElicitHandler; deadline?: Deadline },
  ): Promise<InvokeOutcome> {
    if (tool.name !== ASK.name) return super.invoke(tool, args, opts);
    const before = opts.deadline?.remaining();
    const answer = opts.elicit
      ? await opts.elicit(
          { capabilityId: "book", tool: "table", message: this.message, requestedSchema: this.schema },
          opts.signal,
        )
      : { action: "decline" as const };
    this.answers.push(answer);
    this.left.push({ before, after: opts.deadline?.remaining() });
    if (this.workAfter) {
      await new Promise((r) => opts.signal.addEventListener("abort", r, { once: true }));
      return { ok: false, content: String(opts.signal.reason), artifacts: [], error: "timeout" };
    }
    return { ok: true, content: JSON.stringify(answer), artifacts: [] };
  }
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface Answer {
  decision: ApprovalDecision;
  elicitation?: { action: ElicitationAction; contentJson?: string };
}

/** One call of book__table; the approval it raises is answered with `answer` (none: no approval expected), `afterMs` after it arrived. */
async function ask(host: AskingHost, answer?: Answer, toolTimeoutMs?: number, afterMs = 0) {
  const config = defaultConfig();
  config.model.baseUrl = "http://127.0.0.1:1/v1";
  if (toolTimeoutMs !== undefined) config.limits.toolTimeoutMs = toolTimeoutMs;
  h = await startHarness({ host, config });
  const { client, agent } = h;
  const events: PipelineEvent[] = [];
  const done = (async () => {
    for await (const ev of client.sendMessage({ content: "book it" })) events.push(ev);
  })();
  const p = await agent.next("process");
  await agent.propose(p.sessionId, p.messageId, "c1", ASK.name, {});
  if (answer) {
    for (let i = 0; !events.some((e) => e.eventType === T.APPROVAL_NEEDED); i++) {
      if (i > 2000) throw new Error("no approval");
      await new Promise((r) => setTimeout(r, 5));
    }
    const approval = events.find((e) => e.eventType === T.APPROVAL_NEEDED)?.approvalNeeded;
    if (afterMs > 0) await new Promise((r) => setTimeout(r, afterMs));
    const ack = await client.resolveApproval({
      ...answer,
      approvalId: approval?.approvalId ?? "",
      sessionId: p.sessionId,
    });
    expect(ack.accepted, ack.message).toBe(true);
  }
  await agent.next("toolResult");
  await agent.complete(p.sessionId, p.messageId, "done");
  await done;
  return {
    answer: host.answers[0],
    approval: events.find((e) => e.eventType === T.APPROVAL_NEEDED)?.approvalNeeded,
    completed: events.find((e) => e.eventType === T.ACTION_COMPLETED)?.actionCompleted,
  };
}

const accept = (content: object): Answer => ({
  decision: ApprovalDecision.ALLOW_ONCE,
  elicitation: { action: ElicitationAction.ACCEPT, contentJson: JSON.stringify(content) },
});

describe("an MCP server's form through the client's approval", () => {
  it("the approval carries the form, the server's words made visible; accepted values reach the server in their types", async () => {
    const host = new AskingHost(SCHEMA, "Book \u001b[31mnow\u001b[0m?");
    const { answer, approval } = await ask(host, accept({ name: "Ada", guests: 4 }));
    expect(approval?.elicitation?.capabilityId).toBe("book");
    expect(approval?.elicitation?.message).toBe("Book \\e[31mnow\\e[0m?");
    expect(JSON.parse(approval?.elicitation?.requestedSchemaJson ?? "{}")).toEqual(SCHEMA);
    expect(approval?.argumentsJson).toBe(JSON.stringify({ guests: 2 }));
    expect(answer).toEqual({ action: "accept", content: { name: "Ada", guests: 4 } });
  });

  it("values that do not fit the schema are declined, not passed on", async () => {
    for (const content of [
      { guests: 4 },
      { name: "Ada", guests: 40 },
      { name: "Ada", guests: "4" },
      { name: "Ada", admin: true },
    ]) {
      const host = new AskingHost(SCHEMA);
      const { answer } = await ask(host, accept(content));
      expect(answer, JSON.stringify(content)).toEqual({ action: "decline" });
      await h?.close();
      h = undefined;
    }
  });

  it("a client without the form: allow answers with the defaults when they fill the form, else declines", async () => {
    const filled = await ask(new AskingHost({ ...SCHEMA, required: [] }), { decision: ApprovalDecision.ALLOW_ONCE });
    expect(filled.answer).toEqual({ action: "accept", content: { guests: 2 } });
    await h?.close();
    h = undefined;
    const missing = await ask(new AskingHost(SCHEMA), { decision: ApprovalDecision.ALLOW_ONCE });
    expect(missing.answer).toEqual({ action: "decline" });
  });

  it("deny declines, deny with cancel cancels, no one to ask declines", async () => {
    const cases: [Answer, ElicitAnswer][] = [
      [{ decision: ApprovalDecision.DENY }, { action: "decline" }],
      [{ decision: ApprovalDecision.DENY, elicitation: { action: ElicitationAction.DECLINE } }, { action: "decline" }],
      [{ decision: ApprovalDecision.DENY, elicitation: { action: ElicitationAction.CANCEL } }, { action: "cancel" }],
      [{ decision: ApprovalDecision.UNATTENDED }, { action: "decline" }],
    ];
    for (const [reply, expected] of cases) {
      const { answer } = await ask(new AskingHost(SCHEMA), reply);
      expect(answer, `decision ${reply.decision}, form ${reply.elicitation?.action}`).toEqual(expected);
      await h?.close();
      h = undefined;
    }
  });

  it("the tool time limit stops while the user fills the form, and counts again after", async () => {
    // Answered after twice the whole limit: the time was the user's, the call goes on.
    const { answer, completed } = await ask(new AskingHost(SCHEMA), accept({ name: "Ada" }), 300, 600);
    expect(answer).toEqual({ action: "accept", content: { name: "Ada" } });
    expect(completed?.success).toBe(true);
    await h?.close();
    h = undefined;
    // The capability's own work after the answer is still bounded by what is left of the limit.
    const slow = new AskingHost(SCHEMA);
    slow.workAfter = true;
    const late = await ask(slow, accept({ name: "Ada" }), 300, 600);
    expect(late.completed?.success).toBe(false);
    expect(`${late.completed?.error} ${late.completed?.resultSummary}`).toMatch(/tool time limit of 300 ms passed/);
  });

  it("the host gets the Engine's deadline, the one the call runs under, stopped while the user is asked", async () => {
    const host = new AskingHost(SCHEMA);
    const { completed } = await ask(host, accept({ name: "Ada" }), 300, 600);
    expect(completed?.success).toBe(true);
    const [left] = host.left;
    // Answered 600 ms after the approval arrived: the time was the user's, not the call's.
    expect(left?.before).toBeGreaterThan(0);
    expect(left?.before).toBeLessThanOrEqual(300);
    expect(left?.after).toBeGreaterThan(0);
    expect(left?.after).toBeLessThanOrEqual(left?.before ?? 0);
  });

  it("a schema with a field a form cannot take is declined without asking", async () => {
    const host = new AskingHost({ type: "object", properties: { address: { type: "object" } } });
    const { answer, approval } = await ask(host);
    expect(answer).toEqual({ action: "decline" });
    expect(approval).toBeUndefined();
  });
});
