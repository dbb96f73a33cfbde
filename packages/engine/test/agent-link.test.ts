import { afterEach, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { Code, createClient } from "@palisade/protocol";
import { ClientService, SandboxReportSchema, SubAgentService } from "@palisade/protocol/pipeline";
import { safeEqual, sandboxViolations } from "../src/index.js";
import { AGENT_TOKEN, startHarness } from "./helpers/setup.js";
import type { Harness } from "./helpers/setup.js";
import { CONFINED, ScriptedAgent } from "./helpers/scripted-agent.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("agent link", () => {
  it("refuses an Agent with a wrong token", async () => {
    h = await startHarness({}, false);
    const agent = new ScriptedAgent(h.engine.address, "not-the-token");
    const err = await agent.closed;
    expect(err).toMatchObject({
      code: Code.UNAUTHENTICATED,
      message: expect.stringMatching(/no valid token/) as unknown,
    });
    expect((await h.client.getStatus({})).agentConnected).toBe(false);
  });

  it("a spawn token opens one RunSession: a replay is refused and logged, the first Agent stays", async () => {
    h = await startHarness();
    const replay = new ScriptedAgent(h.engine.address, AGENT_TOKEN);
    expect(await replay.closed).toMatchObject({
      code: Code.UNAUTHENTICATED,
      message: expect.stringMatching(/already used/) as unknown,
    });
    expect(h.logs.some((l) => /refused a replayed Agent token/.test(l))).toBe(true);
    expect(replay.all).toEqual([]);
    // The real Agent is still the one connected: it gets the next turn.
    const stream = h.client.sendMessage({ content: "still yours" });
    const reading = (async () => {
      for await (const _ of stream) void _;
    })();
    const p = await h.agent.next("process");
    expect(p.content).toBe("still yours");
    await h.agent.complete(p.sessionId, p.messageId, "ok");
    await reading;
  });

  it("the Agent's token opens neither ClientService nor SubAgentService, nor the client token AgentService", async () => {
    h = await startHarness({}, false);
    const asClient = createClient(ClientService, h.engine.address, { bearerToken: AGENT_TOKEN });
    await expect(asClient.getStatus({})).rejects.toMatchObject({ code: Code.UNAUTHENTICATED });
    const asSub = createClient(SubAgentService, h.engine.address, { bearerToken: AGENT_TOKEN });
    await expect(asSub.subAgentPollMessage({})).rejects.toMatchObject({ code: Code.UNAUTHENTICATED });
    const clientAsAgent = new ScriptedAgent(h.engine.address, h.engine.bearerToken);
    expect(await clientAsAgent.closed).toMatchObject({ code: Code.UNAUTHENTICATED });
    // The refusals spent nothing: the Agent's token still works once.
    const agent = new ScriptedAgent(h.engine.address, AGENT_TOKEN);
    await agent.next("initialToolDefs");
    asClient.close();
    asSub.close();
    agent.close();
  });

  it("refuses an unconfined Agent unless allowed, and says why", async () => {
    h = await startHarness({}, false);
    const agent = new ScriptedAgent(h.engine.address, AGENT_TOKEN, { canSpawnProcess: true });
    const shutdown = await agent.next("shutdown");
    expect(shutdown.reason).toMatch(/unconfined Agent .*spawn a process.*--allow-unsandboxed/);
    expect(String(await agent.closed)).toMatch(/PERMISSION_DENIED|unconfined/);
    expect(agent.all.map((d) => d.directive.case)).toEqual(["shutdown"]);
  });

  it("accepts an unconfined Agent with allowUnsandboxed, InitialToolDefs first", async () => {
    h = await startHarness({ allowUnsandboxed: true }, false);
    const agent = new ScriptedAgent(h.engine.address, AGENT_TOKEN, { canWriteFile: true, permissionModel: false });
    const first = await agent.next("initialToolDefs");
    expect(first.tools.map((t) => t.name)).toEqual(["load_tools"]);
    expect(first.groups.map((g) => g.name)).toEqual(["demo", "other", "agents"]); // "agents": sub-agent tools (engine-side, see sub-agents)
    expect(agent.all[0]?.directive.case).toBe("initialToolDefs");
    agent.close();
  });

  it("load_tools: ToolDefsRequest is answered with the groups' tools and remembered for the session", async () => {
    h = await startHarness();
    const { agent, client } = h;
    const stream = client.sendMessage({ content: "load" });
    const reading = (async () => {
      for await (const _ of stream) void _;
    })();
    const p = await agent.next("process");
    expect(p.loadedGroups).toEqual([]);
    await agent.send({
      event: {
        case: "toolDefsRequest",
        value: { groups: ["demo", "nope"], sessionId: p.sessionId, messageId: p.messageId, requestId: "r1" },
      },
    });
    const defs = await agent.next("toolDefs");
    expect(defs).toMatchObject({
      requestId: "r1",
      sessionId: p.sessionId,
      unknownGroups: ["nope"],
      loadedGroups: ["demo"],
    });
    expect(defs.tools.map((t) => t.name)).toContain("demo__echo");
    expect(defs.tools.find((t) => t.name === "demo__finish")?.terminalOnSuccess).toBe(true);
    await agent.propose(p.sessionId, p.messageId, "f", "demo__finish", {});
    expect((await agent.next("toolResult")).terminal).toBe(true);
    await agent.complete(p.sessionId, p.messageId, "ok");
    await reading;
    const s2 = client.sendMessage({ content: "again", sessionId: p.sessionId });
    const r2 = (async () => {
      for await (const _ of s2) void _;
    })();
    const p2 = await agent.next("process");
    expect(p2.loadedGroups).toEqual(["demo"]);
    expect(p2.tools.length).toBe(5);
    expect(p2.systemPrompt).toContain("PROMPT(demo)");
    await agent.complete(p2.sessionId, p2.messageId, "ok");
    await r2;
  });

  it("ClientService refuses an authenticated request over limits.client_max_message (default 1 MiB)", async () => {
    const big = { titleFilter: "x".repeat(2 * 1024 * 1024) };
    h = await startHarness({}, false);
    await expect(h.client.listSessions(big)).rejects.toMatchObject({
      code: Code.RESOURCE_EXHAUSTED,
      message: expect.stringMatching(/over this service's limit of 1048576 bytes/) as unknown,
    });
    await h.close();
    h = await startHarness({ limits: { clientMaxMessageBytes: 4 * 1024 * 1024 } }, false);
    expect((await h.client.listSessions(big)).sessions).toEqual([]);
  });

  it("pure helpers", () => {
    expect(safeEqual("abc", "abc")).toBe(true);
    expect(safeEqual("abc", "abd")).toBe(false);
    expect(safeEqual("abc", "abcd")).toBe(false);
    expect(sandboxViolations(create(SandboxReportSchema, CONFINED))).toEqual([]);
    expect(sandboxViolations(undefined)).toEqual(["no sandbox report"]);
    expect(sandboxViolations(create(SandboxReportSchema, { ...CONFINED, canReadOutside: true }))).toEqual([
      "it could read a file outside its code",
    ]);
  });
});
