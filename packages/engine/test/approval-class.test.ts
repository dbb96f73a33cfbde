// "Allow for this session" grants the approved action's class (same tool and command prefix /
// path scope / host), never the whole tool; a detector's escalation is asked every time; the
// approval shows arguments and reasons with terminal controls made visible; off the record a
// tool that writes files is refused.
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalDecision, SessionMode } from "@palisade/protocol/types";
import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { createEngineShield } from "../src/adapters/shield.js";
import { defaultConfig } from "@palisade/config";
import type { ToolSpec } from "../src/ports.js";
import { FakeHost, TOOLS } from "./helpers/fake-host.js";
import { startHarness } from "./helpers/setup.js";
import type { Harness } from "./helpers/setup.js";

const SHELL: ToolSpec = {
  name: "box__run",
  capabilityId: "box",
  description: "Run a shell command",
  policy: "ask",
  terminalOnSuccess: false,
  parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  semantics: { kind: "shell", commands: ["command"] },
};
const WRITER: ToolSpec = {
  name: "box__save",
  capabilityId: "box",
  description: "Write a file",
  policy: "allow",
  terminalOnSuccess: false,
  parameters: {
    type: "object",
    properties: { path: { type: "string" }, content: { type: "string" } },
    required: ["path"],
  },
  semantics: { kind: "file-write", paths: { path: "write" }, content: ["content"] },
};

class BoxHost extends FakeHost {
  override catalog(): ToolSpec[] {
    return [...TOOLS, SHELL, WRITER];
  }
  override resolve(name: string) {
    const t = [SHELL, WRITER].find((x) => x.name === name);
    return t ? { tool: t } : super.resolve(name);
  }
}

let h: Harness | undefined;
let host: BoxHost;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(): Promise<Harness> {
  const config = defaultConfig();
  host = new BoxHost();
  const dir = `/tmp/pal-approval-ws`;
  return startHarness({
    host,
    shield: await createEngineShield(config, "/tmp/pal-approval-data", dir),
    workspace: dir,
  });
}

function watch(stream: AsyncIterable<PipelineEvent>) {
  const approvals: NonNullable<PipelineEvent["approvalNeeded"]>[] = [];
  const done = (async () => {
    for await (const ev of stream)
      if (ev.eventType === T.APPROVAL_NEEDED && ev.approvalNeeded) approvals.push(ev.approvalNeeded);
  })();
  const next = async (n: number) => {
    for (let i = 0; approvals.length < n; i++) {
      if (i > 2000) throw new Error(`approval ${n} never came`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return approvals[n - 1]!;
  };
  return { approvals, done, next };
}

describe("session grants cover the action's class", () => {
  it("a grant for `openssl rand` covers other openssl calls, not another program; a detector's escalation is asked every time", async () => {
    h = await harness();
    const { client, agent } = h;
    const w = watch(client.sendMessage({ content: "go" }));
    const p = await agent.next("process");
    const run = async (id: string, command: string) =>
      agent.propose(p.sessionId, p.messageId, id, "box__run", { command });
    // box__run is not in the default policy: every call asks (tier 0)
    await run("c1", "openssl rand -hex 8");
    await client.resolveApproval({
      approvalId: (await w.next(1)).approvalId,
      decision: ApprovalDecision.ALLOW_SESSION,
    });
    expect((await agent.next("toolResult")).isError).toBe(false);
    await run("c2", "openssl rand -hex 16"); // same class (program, subcommand, options): no question
    expect((await agent.next("toolResult")).isError).toBe(false);
    expect(w.approvals).toHaveLength(1);
    await run("c3", "ssh-keygen -l -f k.pub"); // same tool, another program: asked
    const a3 = await w.next(2);
    expect(a3.callId).toBe("c3");
    await client.resolveApproval({ approvalId: a3.approvalId, decision: ApprovalDecision.DENY });
    expect((await agent.next("toolResult")).isError).toBe(true);
    // a detector escalates `printenv` (environment dump); the user allows the class for the session
    await run("c4", "printenv");
    await client.resolveApproval({
      approvalId: (await w.next(3)).approvalId,
      decision: ApprovalDecision.ALLOW_SESSION,
    });
    expect((await agent.next("toolResult")).isError).toBe(false);
    await run("c5", "printenv HOME"); // the policy's question for the class: answered by the grant
    expect((await agent.next("toolResult")).isError).toBe(false);
    expect(w.approvals).toHaveLength(3);
    await run("c6", "printenv"); // the detector's concern is asked again
    const a6 = await w.next(4);
    expect(a6.callId).toBe("c6");
    await client.resolveApproval({ approvalId: a6.approvalId, decision: ApprovalDecision.DENY });
    expect((await agent.next("toolResult")).isError).toBe(true);
    await agent.complete(p.sessionId, p.messageId, "done");
    await w.done;
    expect(host.invocations.map((i) => (i.args as { command: string }).command)).toEqual([
      "openssl rand -hex 8",
      "openssl rand -hex 16",
      "printenv",
      "printenv HOME",
    ]);
  });

  it("the approval shows C1 controls and bidi overrides as visible escapes, in arguments and reason", async () => {
    h = await harness();
    const { client, agent } = h;
    const w = watch(client.sendMessage({ content: "go" }));
    const p = await agent.next("process");
    const args = { command: "openssl version", note: "all good \u009b31m \u202eevil" };
    await agent.propose(p.sessionId, p.messageId, "c1", "box__run", args);
    const a = await w.next(1);
    expect(a.argumentsJson).not.toMatch(/[\u009b\u202e]/);
    expect(a.argumentsJson).toContain("\\u009b31m");
    expect(a.argumentsJson).toContain("\\u202eevil");
    expect(JSON.parse(a.argumentsJson)).toEqual(args);
    // eslint-disable-next-line no-control-regex -- the reason must carry no raw control characters
    expect(a.reason).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    await client.resolveApproval({ approvalId: a.approvalId, decision: ApprovalDecision.DENY });
    await agent.next("toolResult");
    await agent.complete(p.sessionId, p.messageId, "done");
    await w.done;
  });
});

describe("off the record", () => {
  it("a tool that writes files is refused even when its policy is allow", async () => {
    h = await harness();
    const { client, agent } = h;
    const w = watch(client.sendMessage({ content: "go", mode: SessionMode.OTR }));
    const p = await agent.next("process");
    await agent.propose(p.sessionId, p.messageId, "c1", "box__save", { path: "notes.txt", content: "x" });
    const r = await agent.next("toolResult");
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/not available off the record \(it writes files/);
    await agent.propose(p.sessionId, p.messageId, "c2", "demo__echo", { text: "hi" });
    expect((await agent.next("toolResult")).isError).toBe(false);
    await agent.complete(p.sessionId, p.messageId, "done");
    await w.done;
    expect(host.invocations.map((i) => i.tool)).toEqual(["demo__echo"]);
  });
});
