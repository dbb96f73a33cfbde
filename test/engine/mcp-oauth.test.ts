// An HTTP MCP server behind OAuth (a real local authorization server), used by a real Engine,
// Agent and sandboxed stdio server: the tokens Palisade holds reach that server's endpoint and
// nothing else — not the Agent, not a sandboxed server's environment, not the model.
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loginMcpServer } from "@palisade/capabilities";
import { ApprovalDecision } from "@palisade/protocol/types";
import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { messageText } from "@palisade/testing";
import { OAuthRig } from "../../packages/capabilities/test/oauth-server.js";
import { built, startE2E } from "./helpers.js";
import type { E2E } from "./helpers.js";

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js",
);

async function browser(url: URL): Promise<void> {
  const res = await fetch(url, { redirect: "manual" });
  const location = res.headers.get("location");
  await res.body?.cancel();
  if (location) await (await fetch(location)).text();
}

const skip = built();
let h: E2E;
let rig: OAuthRig;
let tokens: string[] = [];
beforeAll(async () => {
  if (skip) return;
  rig = new OAuthRig();
  const url = await rig.start();
  h = await startE2E({
    approvalTimeoutS: 5,
    capabilities: () => [
      "  - id: remote",
      `    mcp: { url: ${JSON.stringify(url)} }`,
      "  - id: everything",
      `    mcp: { command: ${JSON.stringify([process.execPath, EVERYTHING, "stdio"])}, trusted: true }`,
    ],
  });
  // `palisade capability login remote`, then the Engine restarted to use it.
  const credentialsFile = join(h.dataDir, "credentials.json");
  await loginMcpServer({ config: { id: "remote", mcp: { url } }, credentialsFile, open: browser, timeoutMs: 10_000 });
  await h.restart();
  const stored = JSON.parse(
    (JSON.parse(readFileSync(credentialsFile, "utf8")) as { users: { local: { remote: { oauth: string } } } }).users
      .local.remote.oauth,
  ) as { tokens: { access_token: string; refresh_token: string } };
  tokens = [stored.tokens.access_token, stored.tokens.refresh_token];
}, 60_000);
afterAll(async () => {
  await h?.close();
  await rig?.stop();
});

/** The environment of every process whose command line names `marker` (the sandboxed server, read from outside). */
function environsOf(marker: string): string[] {
  const out: string[] = [];
  for (const pid of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker))
        out.push(readFileSync(`/proc/${pid}/environ`, "utf8"));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

async function drive(stream: AsyncIterable<PipelineEvent>): Promise<PipelineEvent[]> {
  const out: PipelineEvent[] = [];
  for await (const ev of stream) {
    out.push(ev);
    if (ev.eventType === T.APPROVAL_NEEDED)
      await h.client.resolveApproval({
        approvalId: ev.approvalNeeded!.approvalId,
        decision: ApprovalDecision.ALLOW_ONCE,
        sessionId: ev.sessionId,
      });
  }
  return out;
}

describe.skipIf(skip)("engine end to end: an MCP server behind OAuth", () => {
  it("the Engine calls it with the stored token; the token is in no Agent environment, no sandboxed server's environment and no model request", async () => {
    expect(tokens.every((t) => t.length > 10)).toBe(true);
    const b = h.model.chatRequests().length;
    h.model.enqueue(
      { toolCalls: [{ name: "load_tools", arguments: { groups: ["remote", "everything"] } }] },
      { toolCalls: [{ name: "remote__whoami", arguments: {} }] },
      { toolCalls: [{ name: "everything__get-env", arguments: {} }] },
      { content: "done" },
    );
    await drive(h.client.sendMessage({ content: "Who am I, and what is in your environment?" }));
    expect(messageText(h.model.chatRequests()[b + 2]!.messages.at(-1))).toBe("alice");
    expect(rig.bearers.at(-1)).toBe(`Bearer ${tokens[0]}`);
    // The sandboxed server printed its whole environment: the model got it.
    const env = messageText(h.model.chatRequests()[b + 3]!.messages.at(-1));
    expect(env).toContain("PATH");
    const agent =
      readFileSync(`/proc/${h.engine.agentPid()!}/environ`, "utf8") +
      readFileSync(`/proc/${h.engine.agentPid()!}/cmdline`, "utf8");
    const everyModelRequest = JSON.stringify(h.model.requests);
    // Read from outside too: the Engine redacts what it knows from results, which would hide a leak.
    const sandboxed = environsOf(EVERYTHING);
    expect(sandboxed.length).toBeGreaterThan(0);
    for (const t of tokens) {
      expect(agent).not.toContain(t);
      expect(env).not.toContain(t);
      for (const e of sandboxed) expect(e).not.toContain(t);
      expect(everyModelRequest).not.toContain(t);
      expect(h.logs.join("\n")).not.toContain(t);
    }
  });
});
