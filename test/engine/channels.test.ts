// Proof that only the Engine acts, tried as an attacker would against a real Engine process (its
// own Node process from dist/, the real sandboxed Agent and sub-agents, the scripted model):
// - an unauthenticated 16 MiB body of unknown fields is refused before decoding, cheaply;
// - a process with exactly the Agent's sandbox flags and environment can call no ClientService or
//   SubAgentService RPC (effects checked: no approval resolved, nothing listed, Engine still up);
// - another local user (nobody) cannot reach ClientService nor read the client token;
// - after `kill -9` of the Engine no Agent or sub-agent process remains within 2 s.
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentMain } from "@palisade/agent/launch";
import { Code, createClient } from "@palisade/protocol";
import type { Client } from "@palisade/protocol";
import { ClientService, PipelineEventType as T } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { ApprovalDecision } from "@palisade/protocol/types";
import { readToken } from "@palisade/config";
import { messageText, startScriptedServer, waitFor } from "@palisade/testing";
import type { ChatRequest, ScriptedReply, ScriptedServer } from "@palisade/testing";
import { built, root } from "./helpers.js";

const skip = built() ?? (existsSync("/proc/self/status") ? undefined : "needs Linux /proc");
const ENGINE_MAIN = join(root, "packages/engine/dist/main.js");
const PROTOCOL = join(root, "packages/protocol/dist");

const POLICY = `
version: 1
name: channels
description: Policy of the channel tests.
defaults:
  unknown_tool: ask
  tools:
    load_tools: allow
    spawn_agent: allow
rules:
  - id: channels-ask-write
    description: Writing needs a human.
    tools: [files__write_file]
    decision: ask
`;

const lastUser = (req: ChatRequest): string => messageText(req.messages.findLast((m) => m.role === "user"));
const stepsSinceUser = (req: ChatRequest): number =>
  req.messages.slice(req.messages.findLastIndex((m) => m.role === "user")).filter((m) => m.role === "tool").length;
const call = (name: string, args: Record<string, unknown>): ScriptedReply => ({
  toolCalls: [{ name, arguments: args }],
});

/** The model: "[write]" asks to write a file (needs approval), "[spawn]" starts a sub-agent whose model call never answers. */
function script(req: ChatRequest): ScriptedReply {
  const system = req.messages[0]?.role === "system" ? messageText(req.messages[0]) : "";
  if (system.includes("a sub-agent working for")) return { content: "thinking", stallAfterChunks: 0 };
  const step = stepsSinceUser(req);
  if (lastUser(req).includes("[write]")) {
    return (
      [call("load_tools", { groups: ["files"] }), call("files__write_file", { path: "pwned.txt", content: "owned" })][
        step
      ] ?? { content: "done" }
    );
  }
  if (lastUser(req).includes("[spawn]")) {
    return (
      [
        call("load_tools", { groups: ["agents"] }),
        call("spawn_agent", { task: "[spawn] wait for a long time", tool_groups: ["files"], wait: true }),
      ][step] ?? { content: "done" }
    );
  }
  return { content: "ok" };
}

interface EngineProc {
  child: ChildProcess;
  pid: number;
  address: string;
  client: Client<typeof ClientService>;
  stderr: string[];
}

let dir: string;
let dataDir: string;
let workspace: string;
let model: ScriptedServer;
let engine: EngineProc;
const spawned: ChildProcess[] = [];

async function startEngineProcess(): Promise<EngineProc> {
  const child = spawn(
    process.execPath,
    [ENGINE_MAIN, "--config", join(dir, "config.yaml"), "--data-dir", dataDir, "--workspace", workspace],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  spawned.push(child);
  const stderr: string[] = [];
  child.stderr?.on("data", (d: Buffer) => stderr.push(d.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", resolve);
    child.once("exit", (code, signal) =>
      reject(new Error(`the Engine exited (${String(signal ?? code)}) before it was ready:\n${stderr.join("")}`)),
    );
  });
  const { address, pid } = JSON.parse(line) as { address: string; pid: number };
  const token = await readToken(dataDir);
  const client = createClient(ClientService, address, { bearerToken: token ?? "" });
  await waitFor(async () => (await client.getStatus({})).agentConnected, { timeoutMs: 30_000 });
  return { child, pid, address, client, stderr };
}

/** Processes below `pid` (children, grandchildren, ...) with their command lines. */
function descendants(pid: number): { pid: number; cmdline: string }[] {
  const parent = new Map<number, number>();
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      parent.set(Number(e), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: { pid: number; cmdline: string }[] = [];
  const isBelow = (p: number): boolean => {
    for (let cur = parent.get(p), n = 0; cur !== undefined && n < 32; cur = parent.get(cur), n++)
      if (cur === pid) return true;
    return false;
  };
  for (const p of parent.keys()) {
    if (!isBelow(p)) continue;
    try {
      out.push({
        pid: p,
        cmdline: readFileSync(`/proc/${String(p)}/cmdline`, "utf8")
          .split("\0")
          .join(" "),
      });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Running (a zombie has exited: its parent, here PID 1 after the Engine died, just has not reaped it yet). */
const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
};

const cpuMs = (pid: number): number => {
  const f =
    readFileSync(`/proc/${String(pid)}/stat`, "utf8")
      .slice(0)
      .split(") ")[1]
      ?.split(" ") ?? [];
  return (Number(f[11]) + Number(f[12])) * 10;
};

const rssKb = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${String(pid)}/status`, "utf8"))?.[1] ?? NaN);

beforeAll(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), "pal-chan-"));
  dataDir = join(dir, "data");
  workspace = join(dir, "ws");
  mkdirSync(workspace);
  writeFileSync(join(dir, "policy.yaml"), POLICY);
  model = await startScriptedServer({ fallback: script });
  writeFileSync(
    join(dir, "config.yaml"),
    [
      "model:",
      `  base_url: ${model.baseURL}`,
      "  api_key: sk-test-not-secret",
      "  name: scripted-model",
      "shield:",
      `  policy_file: ${join(dir, "policy.yaml")}`,
      "capabilities:",
      ...["shell", "http", "documents", "mail"].map((id) => `  - { id: ${id}, enabled: false }`),
      "history:",
      "  auto_title: false",
    ].join("\n"),
    { mode: 0o600 }, // it holds model.api_key
  );
  engine = await startEngineProcess();
}, 60_000);

afterAll(async () => {
  engine?.client.close();
  for (const c of spawned) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await model?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skip)("only the Engine acts (real Engine process, real Agent)", () => {
  it("refuses an unauthenticated 16 MiB body of unknown fields before decoding: RSS grows < 50 MB, GetStatus stays < 100 ms", async () => {
    // The attacker runs in its own process, so its 48 MiB of writes do not slow the probing client.
    const grpcUrl = pathToFileURL(join(root, "node_modules/@grpc/grpc-js/build/src/index.js")).href;
    const attacker = `
      const { Client, Metadata, credentials } = await import(${JSON.stringify("GRPC")});
      const n = 16 * 1024 * 1024 - 64;
      const body = Buffer.alloc(n - (n % 3));
      for (let i = 0; i < body.length; i += 3) { body[i] = 0xc2; body[i + 1] = 0x3e; body[i + 2] = 0; }
      const raw = new Client(process.argv[1], credentials.createInsecure(), { "grpc.max_send_message_length": -1 });
      const id = (b) => b;
      const unary = (path) => new Promise((resolve) => raw.makeUnaryRequest(path, id, id, body, new Metadata(), {}, (err) => resolve(err?.code)));
      const bidi = (path) => new Promise((resolve) => {
        const c = raw.makeBidiStreamRequest(path, id, id, new Metadata(), {});
        c.on("data", () => {});
        c.on("error", (err) => resolve(err.code));
        c.on("end", () => resolve(undefined));
        c.write(body);
      });
      const codes = [];
      for (let round = 0; round < 3; round++) {
        codes.push(...(await Promise.all([unary("/palisade.v1.ClientService/ResolveApproval"), bidi("/palisade.v1.AgentService/RunSession"), unary("/palisade.v1.SubAgentService/RegisterSubAgent")])));
      }
      process.stdout.write(JSON.stringify(codes));
      process.exit(0);
    `.replace('"GRPC"', JSON.stringify(grpcUrl));
    const attack = async (): Promise<{ codes: unknown; growthMb: number; slowest: number }> => {
      await engine.client.getStatus({});
      const before = rssKb(engine.pid);
      let peak = before;
      let slowest = 0;
      let probing = true;
      const probe = (async () => {
        while (probing) {
          peak = Math.max(peak, rssKb(engine.pid));
          const t = performance.now();
          await engine.client.getStatus({});
          slowest = Math.max(slowest, performance.now() - t);
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      const cpu0 = cpuMs(engine.pid);
      const child = spawn(process.execPath, ["--input-type=module", "-e", attacker, engine.address], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      spawned.push(child);
      let output = "";
      child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
      await new Promise((resolve) => child.once("exit", resolve));
      probing = false;
      await probe;
      peak = Math.max(peak, rssKb(engine.pid));
      if (process.env.PALISADE_TEST_VERBOSE)
        process.stderr.write(
          `RSS ${String(before)} -> ${String(peak)} kB, slowest GetStatus ${slowest.toFixed(1)} ms, Engine CPU ${String(cpuMs(engine.pid) - cpu0)} ms\n`,
        );
      return { codes: JSON.parse(output || "[]") as unknown, growthMb: (peak - before) / 1024, slowest };
    };
    // Memory is checked on every attempt. Latency on a shared 2-core machine also measures the
    // other processes: an attempt may be repeated (up to 3), a real regression (seconds of
    // decoding, as before authorization moved ahead of it) fails them all.
    const slowest: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const r = await attack();
      expect(r.codes).toEqual(Array(9).fill(Code.UNAUTHENTICATED));
      expect(r.growthMb, "Engine RSS growth (MB)").toBeLessThan(50);
      slowest.push(r.slowest);
      if (r.slowest < 100) break;
    }
    expect(
      Math.min(...slowest),
      `slowest GetStatus per attempt while the bodies were refused (ms): ${slowest.map((x) => x.toFixed(0)).join(", ")}`,
    ).toBeLessThan(100);
  });

  it("from the Agent's own sandbox flags and environment, no ClientService or SubAgentService RPC succeeds, and nothing happens", async () => {
    // A pending approval the attacker would love to answer.
    const events: PipelineEvent[] = [];
    const turn = (async () => {
      for await (const ev of engine.client.sendMessage({ content: "[write] please" }, { timeoutMs: 60_000 }))
        events.push(ev);
    })();
    const needed = await waitFor(() => events.find((e) => e.eventType === T.APPROVAL_NEEDED)?.approvalNeeded, {
      timeoutMs: 20_000,
    });
    const sessionId = events[0]?.sessionId ?? "";

    // The Agent's entry point: its one-file bundle after `make build`, else dist/main.js.
    // The process the Engine started for the Agent (its sandbox launcher, e.g. bubblewrap).
    const agent = descendants(engine.pid).find(
      (p) =>
        p.cmdline.includes(agentMain()) &&
        readFileSync(`/proc/${String(p.pid)}/stat`, "utf8")
          .split(") ")[1]
          ?.split(" ")[1] === String(engine.pid),
    );
    expect(agent, "the Engine's Agent process").toBeDefined();
    // Exactly the Agent's command line (sandbox, permission flags) and environment, as the kernel shows them.
    const env = Object.fromEntries(
      readFileSync(`/proc/${String(agent?.pid)}/environ`, "utf8")
        .split("\0")
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
    ) as Record<string, string>;
    const argv = readFileSync(`/proc/${String(agent?.pid)}/cmdline`, "utf8")
      .split("\0")
      .filter(Boolean);
    expect(argv.at(-1)).toBe(agentMain());
    const [command = "", ...flags] = argv.slice(0, -1);
    const url = (p: string): string => pathToFileURL(join(PROTOCOL, p)).href;
    const attacker = `
      const fs = await import("node:fs");
      const P = await import(${JSON.stringify(url("index.js"))});
      const G = await import(${JSON.stringify(url("gen/palisade/v1/pipeline_pb.js"))});
      const out = {};
      const attempt = async (name, fn) => { try { await fn(); out[name] = "SUCCEEDED"; } catch (e) { out[name] = e.codeName ?? e.code ?? String(e); } };
      const addr = process.env.PALISADE_ENGINE_ADDRESS;
      await attempt("read engine.token", () => fs.readFileSync(${JSON.stringify(join(dataDir, "engine.token"))}));
      for (const token of [undefined, "", "guess"]) {
        const c = P.createClient(G.ClientService, addr, token === undefined ? {} : { bearerToken: token });
        await attempt("ResolveApproval/" + token, () => c.resolveApproval({ approvalId: ${JSON.stringify(needed.approvalId)}, sessionId: ${JSON.stringify(sessionId)}, decision: ${String(ApprovalDecision.ALLOW_SESSION)} }));
        await attempt("ListSessions/" + token, () => c.listSessions({}));
        await attempt("GetHistory/" + token, () => c.getHistory({ sessionId: ${JSON.stringify(sessionId)} }));
        await attempt("GetStatus/" + token, () => c.getStatus({}));
        await attempt("Shutdown/" + token, () => c.shutdown({}));
        await attempt("SendMessage/" + token, async () => { for await (const _ of c.sendMessage({ content: "hi" })) {} });
        const s = P.createClient(G.SubAgentService, addr, token === undefined ? {} : { bearerToken: token });
        await attempt("RegisterSubAgent/" + token, () => s.registerSubAgent({ pid: process.pid }));
        await attempt("SubAgentExecuteTool/" + token, () => s.subAgentExecuteTool({ callId: "x", toolName: "files__write_file", argumentsJson: "{}" }));
        await attempt("SubAgentPollMessage/" + token, () => s.subAgentPollMessage({}));
      }
      process.stdout.write(JSON.stringify(out));
      process.exit(0);
    `;
    const res = spawnSync(command, [...flags, "--input-type=module", "-e", attacker], {
      env,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(res.status, res.stderr).toBe(0);
    const results = JSON.parse(res.stdout) as Record<string, string>;
    expect(Object.keys(results).length).toBe(1 + 3 * 9);
    expect(Object.entries(results).filter(([, v]) => v === "SUCCEEDED")).toEqual([]);
    expect(results["read engine.token"]).toBe("ERR_ACCESS_DENIED");
    for (const [name, v] of Object.entries(results))
      if (name !== "read engine.token") expect(v, name).toBe("UNAUTHENTICATED");

    // The effects: the approval is still pending (the real client's answer is the one accepted),
    // nothing was written, and the Engine is up after the Shutdown attempts.
    expect(events.some((e) => e.eventType === T.APPROVAL_RESOLVED)).toBe(false);
    const ack = await engine.client.resolveApproval({
      approvalId: needed.approvalId,
      sessionId,
      decision: ApprovalDecision.DENY,
    });
    expect(ack.accepted).toBe(true);
    await turn;
    expect(existsSync(join(workspace, "pwned.txt"))).toBe(false);
    expect(alive(engine.pid)).toBe(true);
    expect((await engine.client.getStatus({})).agentConnected).toBe(true);
  });

  it("another local user (nobody) can neither reach ClientService nor read the client token", () => {
    const runuser = spawnSync("runuser", ["-u", "nobody", "--", "true"]);
    if (runuser.status !== 0) return; // not root: nothing to switch to (the socket's 0700 directory is checked at start)
    const script = `
      const fs = require("node:fs");
      const out = {};
      try { fs.readFileSync(${JSON.stringify(join(dataDir, "engine.token"))}); out.token = "SUCCEEDED"; } catch (e) { out.token = e.code; }
      import(${JSON.stringify(pathToFileURL(join(PROTOCOL, "index.js")).href)}).then(async (P) => {
        const G = await import(${JSON.stringify(pathToFileURL(join(PROTOCOL, "gen/palisade/v1/pipeline_pb.js")).href)});
        for (const token of [undefined, "guess"]) {
          const c = P.createClient(G.ClientService, ${JSON.stringify(engine.address)}, token ? { bearerToken: token } : {});
          try { await c.listSessions({}, { timeoutMs: 5000 }); out["ListSessions/" + token] = "SUCCEEDED"; } catch (e) { out["ListSessions/" + token] = e.codeName; }
          try { await c.shutdown({}, { timeoutMs: 5000 }); out["Shutdown/" + token] = "SUCCEEDED"; } catch (e) { out["Shutdown/" + token] = e.codeName; }
        }
        process.stdout.write(JSON.stringify(out));
        process.exit(0);
      });
    `;
    const res = spawnSync("runuser", ["-u", "nobody", "--", process.execPath, "-e", script], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(res.status, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout) as Record<string, string>;
    expect(out.token).toBe("EACCES");
    // The socket sits in the Engine user's 0700 data dir: the connection itself is refused.
    for (const k of ["ListSessions/undefined", "Shutdown/undefined", "ListSessions/guess", "Shutdown/guess"])
      expect(out[k], k).toBe("UNAVAILABLE");
    expect(alive(engine.pid)).toBe(true);
  });

  it("kill -9 of the Engine: its Agent and sub-agent processes are gone within 2 s", async () => {
    const turn = (async () => {
      try {
        for await (const _ of engine.client.sendMessage({ content: "[spawn] go" }, { timeoutMs: 60_000 })) void _;
      } catch {
        // the Engine is killed under it
      }
    })();
    const children = await waitFor(
      () => {
        const below = descendants(engine.pid);
        const agent = below.find((p) => p.cmdline.includes(agentMain()));
        const sub = below.find((p) => p.cmdline.includes("subagent/dist/main.js"));
        return agent && sub ? [agent.pid, sub.pid] : undefined;
      },
      { timeoutMs: 30_000 },
    );
    const everyChild = descendants(engine.pid).map((p) => p.pid);
    engine.child.kill("SIGKILL");
    const killedAt = Date.now();
    await waitFor(() => children.every((p) => !alive(p)) || undefined, { timeoutMs: 5_000, intervalMs: 20 }).catch(
      () => undefined,
    );
    const goneAfterMs = Date.now() - killedAt;
    const survivors = children.filter(alive);
    // Leave nothing behind (capability processes have their own test of dying with the Engine).
    for (const p of everyChild.filter(alive)) process.kill(p, "SIGKILL");
    expect(survivors, "Agent/sub-agent processes still running").toEqual([]);
    expect(goneAfterMs).toBeLessThan(2000);
    await turn;
  });
});
