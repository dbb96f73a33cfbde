// The configured model server's URL, with a password and a query key, stays in the Engine: the
// Agent's and the sub-agent's environments name no URL, and a sub-agent's failed model call
// (whose error the main Agent hands to the model as a tool result) carries none of it to the
// model server.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messageText } from "@palisade/testing";
import type { ChatRequest, ScriptRule } from "@palisade/testing";
import { ask, fromAgent, fromSubAgent, startLab } from "../subagents/harness.js";
import type { Lab } from "../subagents/harness.js";

const USER = "agent-user-4b1d";
const PASSWORD = "pw-in-url-3e9a";

const toolCount = (req: ChatRequest): number => req.messages.filter((m) => m.role === "tool").length;
const rules: ScriptRule[] = [
  // The main Agent's own call refused: the turn's error, shown to the user, names the server.
  {
    match: {
      when: (req) =>
        fromAgent(req) && messageText(req.messages.findLast((m) => m.role === "user")).includes("[main-fails]"),
    },
    reply: { status: 400, errorMessage: "this server refuses the Agent's request" },
  },
  {
    match: { when: fromAgent },
    reply: (req) => {
      const tools = toolCount(req);
      if (tools === 0) return { toolCalls: [{ name: "load_tools", arguments: { groups: ["agents"] } }] };
      if (tools === 1)
        return { toolCalls: [{ name: "spawn_agent", arguments: { task: "[url] say hello", wait: true } }] };
      return { content: `The helper said: ${messageText(req.messages.at(-1))}` };
    },
  },
  // The sub-agent's model call is refused: its error ends the run and goes back to the main Agent.
  { match: { when: fromSubAgent }, reply: { status: 400, errorMessage: "this server refuses the helper's request" } },
];

let lab: Lab;
const launches: Record<string, string>[] = [];
beforeAll(async () => {
  lab = await startLab(rules, {}, (config) => {
    const url = new URL(config.model.baseUrl ?? "");
    url.username = USER;
    url.password = PASSWORD;
    config.model.baseUrl = url.href;
  });
  lab.engine.tapSubAgents((what, message) => {
    if (what === "launch") launches.push(message as Record<string, string>);
  });
}, 60_000);
afterAll(async () => {
  await lab?.close();
});

describe("the model server's URL", () => {
  it("names the server to the user by its URL without the user name or password when the Agent's call fails", async () => {
    const evs = await ask(lab, "[main-fails] hello");
    const error = evs.find((e) => e.pipelineError)?.pipelineError?.message ?? "";
    const url = new URL(lab.model.baseURL);
    expect(error).toContain(`the model server at ${url.origin}${url.pathname} rejected the request`);
    for (const s of [USER, PASSWORD]) expect(error).not.toContain(s);
  });

  it("is shown by engine status without the user name or password", async () => {
    const status = await lab.client.getStatus({});
    const url = new URL(lab.model.baseURL);
    expect(status.baseUrl).toBe(`${url.origin}${url.pathname}`);
  });

  it("is not in the Agent's environment", () => {
    const environ = readFileSync(`/proc/${String(lab.engine.agentPid())}/environ`, "utf8");
    expect(environ).toContain("PALISADE_MODEL_GATEWAY=");
    for (const s of ["://", USER, PASSWORD, "127.0.0.1"]) expect(environ).not.toContain(s);
  });

  it("never reaches the model server in a failed sub-agent's error, nor in a sub-agent's environment", async () => {
    const evs = await ask(lab, "[url] ask a helper to say hello");
    const final = evs.findLast((e) => e.responseComplete)?.responseComplete?.content ?? "";
    // The failure did travel back to the model (so the path is exercised) ...
    expect(final).toContain("refuses the helper's request");
    // ... and no request the model server received names the user or the password.
    const bodies = lab.model.requests.map((r) => JSON.stringify(r.body ?? {}));
    expect(bodies.length).toBeGreaterThanOrEqual(4);
    for (const b of bodies) for (const s of [USER, PASSWORD]) expect(b).not.toContain(s);
    expect(launches.length).toBe(1);
    // The sub-agent runs in the Agent's view: it knows the Engine's sockets by their paths inside.
    expect(launches[0]?.PALISADE_ENGINE_ADDRESS).toBe("unix:/run/palisade/engine.sock");
    for (const env of launches) for (const s of ["://", USER, PASSWORD]) expect(JSON.stringify(env)).not.toContain(s);
  });
});
