// The Agent's start, as the Engine launches it: from spawn until the Agent, given its token on
// stdin, connects to the Engine's socket (its code loaded, its sandbox set up). The launch before
// bubblewrap (Node's permission model in `unshare --net`, what `sandbox.required: false` keeps
// where bubblewrap cannot run) vs the Agent's bubblewrap view from an empty root, interleaved.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chooseAgentWall, walledLaunch } from "@palisade/engine";
import { defaultConfig } from "@palisade/config";
import { agentLaunchSpec } from "@palisade/agent";
import { summarize } from "./stats.mjs";

/** One start: ms from spawn to the first connection on the Engine's socket. */
function startOnce(launch, server) {
  return new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    const child = spawn(launch.command, launch.args, { env: launch.env, stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.stdin.write("bench-token\n");
    const timer = setTimeout(() => done(new Error(`the Agent did not connect within 20 s: ${stderr}`)), 20_000);
    const onConnection = (sock) => {
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      sock.destroy();
      done(undefined, ms);
    };
    server.once("connection", onConnection);
    child.once("exit", (code) => done(new Error(`the Agent exited (${code}) before connecting: ${stderr}`)));
    let settled = false;
    function done(err, ms) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      server.off("connection", onConnection);
      child.removeAllListeners("exit");
      child.once("exit", () => (err ? reject(err) : resolve(ms)));
      if (child.exitCode !== null || child.signalCode !== null) return err ? reject(err) : resolve(ms);
      child.kill("SIGKILL");
    }
  });
}

/** Starts the Agent `n` times per launch, interleaved; returns the rows of a table and the summaries. */
export async function measureAgentStart(probe, n) {
  const dir = mkdtempSync(join(tmpdir(), "palisade-bench-agent-"));
  const engineSocket = join(dir, "engine.sock");
  const server = createServer();
  await new Promise((r) => server.listen(engineSocket, r));
  const model = { ...defaultConfig().model, name: "bench-model" };
  const hostSockets = { engineAddress: `unix:${engineSocket}`, modelGateway: join(dir, "model-gateway.sock") };
  const spec = (sockets) =>
    agentLaunchSpec({ ...sockets, agentId: "bench", model: model.name, contextWindow: model.contextWindow });
  const bubblewrap = await chooseAgentWall(probe, true);
  const variants = [
    {
      name: "permission model + unshare --net (before)",
      launch: walledLaunch({ kind: "permissions", reason: "bench" }, hostSockets, spec),
      samples: [],
    },
    {
      name: `bubblewrap, empty root (${bubblewrap.kind})`,
      launch: walledLaunch(bubblewrap, hostSockets, spec),
      samples: [],
    },
  ];
  try {
    for (let i = 0; i < 3; i++) for (const v of variants) await startOnce(v.launch, server);
    for (let i = 0; i < n; i++) for (const v of variants) v.samples.push(await startOnce(v.launch, server));
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const base = summarize(variants[0].samples);
  const rows = variants.map((v) => {
    const s = summarize(v.samples);
    return {
      launch: v.name,
      n: s.n,
      "p50 ms": s.p50,
      "p99 ms": s.p99,
      "added p50 ms": s.p50 - base.p50,
      "added p99 ms": s.p99 - base.p99,
    };
  });
  return { rows, before: base, after: summarize(variants[1].samples) };
}
