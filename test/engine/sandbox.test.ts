// the Agent's sandbox probes are asserted (it cannot write a file or spawn a
// process), and credentials of capabilities never appear in anything sent to the Agent.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toJsonString } from "@bufbuild/protobuf";
import { agentLauncher, chooseAgentWall } from "@palisade/engine";
import { defaultConfig } from "@palisade/config";
import { probeSandboxOnce } from "@palisade/sandbox";
import { EngineDirectiveSchema } from "@palisade/protocol/pipeline";
import type { EngineDirective } from "@palisade/protocol/pipeline";
import { built, collect, final, fixtures, startE2E } from "./helpers.js";
import type { E2E } from "./helpers.js";

const SECRET = "s3cr3t-token-4f2a9b7c";
/** The model key of test/engine/helpers.ts's config. */
const MODEL_KEY = "sk-test-not-secret";
const skip = built();
let h: E2E;
const directives: EngineDirective[] = [];
beforeAll(async () => {
  if (skip) return;
  const cap = join(fixtures, "secret-cap");
  h = await startE2E({
    capabilities: [
      "  - id: secret",
      `    manifest: ${join(cap, "manifest.yaml")}`,
      `    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(cap, "main.mjs"))}]`,
      "    protocol: palisade",
      `    credentials: { SECRET_TOKEN: ${JSON.stringify(SECRET)} }`,
    ],
  });
  h.engine.tapDirectives((d) => directives.push(d));
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe.skipIf(skip)("engine end to end: sandbox and secrets", () => {
  it("the Agent runs confined: its probes could not write, spawn, read outside or start workers", async () => {
    const s = await h.client.getStatus({});
    expect(s.agentConnected).toBe(true);
    expect(s.sandbox).toMatchObject({
      permissionModel: true,
      canWriteFile: false,
      canSpawnProcess: false,
      canReadOutside: false,
      canStartWorker: false,
      networkIsolated: true,
    });
    const pid = h.engine.agentPid()!;
    // Checked from outside: the Agent's network namespace is not the Engine's, and it has no interface but lo.
    expect(readlinkSync(`/proc/${pid}/ns/net`)).not.toBe(readlinkSync("/proc/self/ns/net"));
    const links = readFileSync(`/proc/${pid}/net/dev`, "utf8")
      .split("\n")
      .slice(2)
      .map((l) => l.split(":")[0]?.trim())
      .filter(Boolean);
    expect(links).toEqual(["lo"]);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    expect(cmdline.some((a) => a === "--experimental-permission" || a === "--permission")).toBe(true);
    expect(cmdline.some((a) => a.startsWith("--allow-fs-write") || a.startsWith("--allow-child-process"))).toBe(false);
    const env = readFileSync(`/proc/${pid}/environ`, "utf8")
      .split("\0")
      .filter(Boolean)
      .map((kv) => kv.slice(0, kv.indexOf("=")));
    // No spawn token: it reaches the Agent on its stdin only. No model key or endpoint either.
    // PWD is bubblewrap's (set for its --chdir /).
    const allowed = [
      "PALISADE_ENGINE_ADDRESS",
      "PALISADE_AGENT_ID",
      "PALISADE_MODEL",
      "PALISADE_MODEL_GATEWAY",
      "PALISADE_CONTEXT_WINDOW",
      "PALISADE_MODEL_SETTINGS",
      "PALISADE_HISTORY_IDLE_MS",
      "PWD",
    ];
    expect(env.filter((k) => !allowed.includes(k))).toEqual([]);
    expect(readFileSync(`/proc/${pid}/environ`, "utf8")).not.toContain(SECRET);
  });

  it("the Agent's environment holds no model key; the model server still gets it, from the Engine's gateway", async () => {
    const environ = readFileSync(`/proc/${h.engine.agentPid()!}/environ`, "utf8");
    expect(environ).not.toContain(MODEL_KEY);
    expect(environ).not.toContain("OPENAI_");
    h.model.enqueue({ content: "keyless" });
    const evs = await collect(h.client.sendMessage({ content: "who holds the key?" }));
    expect(final(evs).responseComplete?.content).toBe("keyless");
    const call = h.model.requests.at(-1)!;
    expect(call.path).toBe("/v1/chat/completions");
    expect(call.headers.authorization).toBe(`Bearer ${MODEL_KEY}`);
    // Tokens are counted per session by the gateway, from the usage the model reported.
    const sessionId = evs.find((e) => e.sessionId)?.sessionId ?? "";
    expect(h.engine.gatewayUsage().get(sessionId)).toMatchObject({
      calls: 1,
      outputTokens: expect.any(Number) as number,
    });
    expect(h.engine.gatewayUsage().get(sessionId)!.inputTokens).toBeGreaterThan(0);
  });

  it("a process launched like the Agent (its flags, in its network namespace) cannot reach a listener on the host's loopback", async () => {
    let hits = 0;
    const server = createServer((sock) => {
      hits++;
      sock.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      // The Agent's launch as the Engine makes it (its sandbox, flags and environment), its entry point replaced by the probe.
      const runtime = mkdtempSync(join(tmpdir(), "pal-agent-net-"));
      const wall = await chooseAgentWall(await probeSandboxOnce(), true);
      const config = defaultConfig();
      const launch = await agentLauncher(wall)({
        engineAddress: `unix:${join(runtime, "engine.sock")}`,
        modelGateway: join(runtime, "gw.sock"),
        token: "t",
        agentId: "probe",
        model: { ...config.model, name: "scripted-model" },
      });
      const code = `const s=require("node:net").connect(${String(port)},"127.0.0.1");s.on("connect",()=>{console.log("connected");process.exit(0)});s.on("error",(e)=>{console.log("refused:"+e.code);process.exit(0)})`;
      const res = spawnSync(launch.command, [...launch.args.slice(0, -1), "-e", code], {
        env: launch.env,
        encoding: "utf8",
        timeout: 15_000,
      });
      rmSync(runtime, { recursive: true, force: true });
      expect(res.stdout).toMatch(/^refused:E(NETUNREACH|CONNREFUSED|ACCES)/);
      expect(hits).toBe(0);
    } finally {
      server.close();
    }
  });

  it("capability credentials never reach the Agent, even when a capability echoes them", async () => {
    h.model.enqueue(
      { toolCalls: [{ name: "load_tools", arguments: { groups: ["secret"] } }] },
      { toolCalls: [{ name: "secret__whoami", arguments: {} }] },
      { content: "You are alice." },
    );
    const evs = await collect(h.client.sendMessage({ content: "who am I?" }));
    expect(final(evs).responseComplete?.content).toBe("You are alice.");
    const results = directives.filter((d) => d.directive.case === "toolResult");
    expect(results.length).toBeGreaterThan(0);
    expect(directives.some((d) => d.directive.case === "toolDefs")).toBe(true);
    for (const d of directives) expect(toJsonString(EngineDirectiveSchema, d)).not.toContain(SECRET);
    // What the Agent forwarded to the model is what it received: no secret there either.
    for (const r of h.model.chatRequests()) expect(JSON.stringify(r)).not.toContain(SECRET);
    // The capability really had the credential (the result mentions the user).
    const toolMsg = h.model
      .chatRequests()
      .at(-1)!
      .messages.find((m) => m.role === "tool" && JSON.stringify(m).includes("alice"));
    expect(toolMsg).toBeDefined();
  });
});
