// The cost of the tool sandbox, in one run:
// 1. per shell command as the Engine runs it: `execute_command {command: "true"}` through the
//    CapabilityHost to the built-in shell capability, sandboxed (one bubblewrap sandbox per
//    workspace, started once; each command runs inside it) vs the same capability unsandboxed;
// 2. starting a sandbox (what a command would pay if each were wrapped in its own bubblewrap):
//    `/bin/sh -c true` plainly vs under bubblewrap with the workspace view, hidden paths, new
//    user/pid/net namespaces, rlimits and the cgroup join;
// 3. the egress proxy's added latency on an HTTP request;
// 4. the Agent's start: its launch before bubblewrap vs its empty-root view (bench/lib/agent-start.mjs).
// Run: node bench/sandbox.mjs (after `make build`; needs bubblewrap).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { bwrapArgs, EgressProxy, HIDDEN_IN_HOME, prepareSandbox, probeSandbox } from "@palisade/sandbox";
import { CapabilityHost } from "@palisade/capabilities";
import { command as shellCommand, manifestPath as shellManifest } from "@palisade/capability-shell";
import { printTable, summarize, writeResult } from "./lib/stats.mjs";
import { measureAgentStart } from "./lib/agent-start.mjs";

const N = Number(process.env.BENCH_COMMANDS ?? 200);
const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 500);
const AGENT_STARTS = Number(process.env.BENCH_AGENT_STARTS ?? 30);

const probe = await probeSandbox();
if (!probe.available) {
  console.error(`bubblewrap sandboxes are not available here: ${probe.reason}`);
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), "palisade-bench-sbx-"));
const ws = mkdtempSync(join("/var/tmp", "palisade-bench-ws-"));
const spec = { filesystem: "workspace", workspace: ws, network: "none", protect: [dir] };
const resources = { pids: 256, memoryMb: 1024, cpuSeconds: 600, fileSizeMb: 1024 };
const env = { PATH: "/usr/bin:/bin", HOME: process.env.HOME ?? "/" };

function run(argv, childEnv) {
  return new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    const c = spawn(argv[0], argv.slice(1), { env: childEnv, stdio: "ignore" });
    c.once("error", reject);
    c.once("close", (code) =>
      code === 0 ? resolve(Number(process.hrtime.bigint() - t) / 1e6) : reject(new Error(`${argv[0]} exited ${code}`)),
    );
  });
}

// 1. execute_command through the host, sandboxed vs not.
const shellConfig = {
  id: "shell",
  manifest: shellManifest,
  command: [...shellCommand],
  protocol: "palisade",
  config: { workspace: ws },
};
const sandboxSettings = {
  probe,
  required: true,
  hide: [],
  readOnly: [],
  writable: [],
  protect: [dir],
  allowAddresses: [],
  runBase: mkdtempSync(join(tmpdir(), "palisade-bench-run-")),
};
const hosts = {
  unsandboxed: new CapabilityHost({
    dataDir: join(dir, "d1"),
    capabilities: [{ ...shellConfig, sandbox: false }],
    log: () => undefined,
  }),
  sandboxed: new CapabilityHost({
    dataDir: join(dir, "d2"),
    capabilities: [shellConfig],
    sandbox: sandboxSettings,
    log: () => undefined,
  }),
};
for (const [name, h] of Object.entries(hosts)) {
  const [status] = await h.start();
  if (status.state !== "ready") throw new Error(`${name} shell not ready: ${status.message}`);
}
const callSamples = { unsandboxed: [], sandboxed: [] };
const call = async (h) => {
  const t = process.hrtime.bigint();
  const r = await h.invoke(
    "shell__execute_command",
    { command: "true" },
    { sessionId: "bench", userId: "bench", workspace: ws },
  );
  if (!r.ok) throw new Error(r.content);
  return Number(process.hrtime.bigint() - t) / 1e6;
};
for (let i = 0; i < 30; i++) for (const h of Object.values(hosts)) await call(h);
for (let i = 0; i < CALLS; i++) for (const [name, h] of Object.entries(hosts)) callSamples[name].push(await call(h));
const sandboxLine = hosts.sandboxed.status()[0]?.sandbox ?? "?";
for (const h of Object.values(hosts)) await h.stop();
rmSync(sandboxSettings.runBase, { recursive: true, force: true });
const cu = summarize(callSamples.unsandboxed);
const cs = summarize(callSamples.sandboxed);
const callRows = [
  { shell: "unsandboxed", n: cu.n, "p50 ms": cu.p50, "p99 ms": cu.p99 },
  {
    shell: "sandboxed",
    n: cs.n,
    "p50 ms": cs.p50,
    "p99 ms": cs.p99,
    "added p50 ms": cs.p50 - cu.p50,
    "added p99 ms": cs.p99 - cu.p99,
  },
];
printTable(
  `execute_command "true" through the CapabilityHost (${CALLS} each, interleaved; load ${loadavg()[0].toFixed(2)})`,
  callRows,
);
console.log(`sandbox: ${sandboxLine}`);

// 2. One prepared sandbox per variant (as a launch would), reused for every command: what is
// measured is starting a command inside it. The baseline view is the one tools had before the
// allowlist: / read-only, a private /tmp, the workspace, and a hide list over it.
const bare = await prepareSandbox({ spec, command: ["/bin/sh", "-c", "true"], runDir: join(dir, "bare"), env });
const limited = await prepareSandbox({
  spec,
  resources,
  command: ["/bin/sh", "-c", "true"],
  runDir: join(dir, "limited"),
  env,
});
const home = env.HOME;
const hideList = [
  ...HIDDEN_IN_HOME.map((p) => join(home, p)),
  "/etc/shadow",
  "/etc/shadow-",
  "/etc/gshadow",
  "/etc/gshadow-",
  "/run/user",
  "/run/docker.sock",
  "/var/lib/docker",
  "/root",
  dir,
].filter((p) => existsSync(p) && p !== home);
const emptyFile = join(dir, "empty");
writeFileSync(emptyFile, "");
const hideListMounts = [
  { op: "ro-bind", src: "/", dest: "/" },
  { op: "dev", dest: "/dev" },
  { op: "proc", dest: "/proc" },
  { op: "tmpfs", dest: "/tmp", sizeBytes: 256 * 1024 * 1024 },
  { op: "bind", src: ws, dest: ws },
  ...hideList.map((p) =>
    statSync(p).isDirectory()
      ? { op: "tmpfs", dest: p, sizeBytes: 4096, readOnly: true }
      : { op: "hide-file", dest: p },
  ),
];
const hideListArgv = [
  probe.bwrap,
  ...bwrapArgs({ mounts: hideListMounts, cwd: ws, emptyFile }),
  "/bin/sh",
  "-c",
  "true",
];
const variants = [
  { name: "plain /bin/sh -c true", argv: ["/bin/sh", "-c", "true"], samples: [] },
  { name: `bwrap, hide-list view (/ read-only, ${hideList.length} paths hidden)`, argv: hideListArgv, samples: [] },
  { name: `bwrap, allowlist view (${bare.mounts.length} mounts)`, argv: bare.argv, samples: [] },
  {
    name: `bwrap + limits (${limited.applied.map((a) => `${a.limit}:${a.by}`).join(", ")})`,
    argv: limited.argv,
    samples: [],
  },
];
for (let i = 0; i < 20; i++) for (const v of variants) await run(v.argv, env);
for (let i = 0; i < N; i++) for (const v of variants) v.samples.push(await run(v.argv, env));

const base = summarize(variants[0].samples);
const rows = variants.map((v) => {
  const s = summarize(v.samples);
  return {
    command: v.name,
    n: s.n,
    "p50 ms": s.p50,
    "p99 ms": s.p99,
    "added p50 ms": s.p50 - base.p50,
    "added p99 ms": s.p99 - base.p99,
  };
});
printTable(`Starting one command, plain vs sandboxed (${N} each, interleaved; load ${loadavg()[0].toFixed(2)})`, rows);
const startAdded = rows[2]["p50 ms"] - rows[1]["p50 ms"];
console.log(
  `starting a sandbox, the allowlist view vs the hide-list view at p50: ${startAdded >= 0 ? "+" : ""}${startAdded.toFixed(2)} ms (once per capability and workspace)`,
);

// 2b. Per command inside a running sandbox of each view (what the shell capability pays per
// command: it runs each one in its sandbox, started once): one sandbox runs EXECS commands and
// times them itself; the per-command time is compared between the views.
const EXECS = 200;
const loop = `t0=$(date +%s%N); i=0; while [ $i -lt ${EXECS} ]; do /bin/true; i=$((i+1)); done; t1=$(date +%s%N); echo $(( (t1 - t0) / ${EXECS} ))`;
const inside = (prefix) =>
  new Promise((resolve, reject) => {
    const c = spawn(prefix[0], [...prefix.slice(1), "/bin/sh", "-c", loop], {
      env,
      stdio: ["ignore", "pipe", "ignore"],
    });
    let out = "";
    c.stdout.on("data", (b) => (out += b));
    c.once("error", reject);
    c.once("close", () => resolve(Number(out.trim()) / 1e6));
  });
const perCommand = [
  { name: "hide-list view", prefix: hideListArgv.slice(0, -3), samples: [] },
  { name: "allowlist view", prefix: bare.argv.slice(0, -3), samples: [] },
];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
for (let i = 0; i < ROUNDS; i++) for (const v of perCommand) v.samples.push(await inside(v.prefix));
const pc = perCommand.map((v) => ({ view: v.name, ...summarize(v.samples) }));
printTable(
  `One command inside a running sandbox (${EXECS} per sandbox, ${ROUNDS} sandboxes each, interleaved; load ${loadavg()[0].toFixed(2)})`,
  [
    { view: pc[0].view, "p50 ms": pc[0].p50, "p99 ms": pc[0].p99 },
    { view: pc[1].view, "p50 ms": pc[1].p50, "p99 ms": pc[1].p99, "added p50 ms": pc[1].p50 - pc[0].p50 },
  ],
);
const viewAdded = pc[1].p50 - pc[0].p50;
console.log(
  `the allowlist view vs the hide-list view, per command at p50: ${viewAdded >= 0 ? "+" : ""}${viewAdded.toFixed(3)} ms (goal <= +1 ms): ${viewAdded <= 1 ? "met" : "NOT met"}`,
);

// The egress proxy: a GET to a local server directly, and through the proxy (forward request).
const upstream = createServer((_q, s) => s.end("ok"));
await new Promise((r) => upstream.listen(0, "127.0.0.1", r));
const port = upstream.address().port;
const proxy = await EgressProxy.listen({
  socketPath: join(dir, "egress.sock"),
  allowHost: (h) => h === "127.0.0.1",
  allowAddresses: ["127.0.0.1"],
});
const get = (opts) =>
  new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    const req = request({ ...opts, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(Number(process.hrtime.bigint() - t) / 1e6));
    });
    req.on("error", reject);
    req.end();
  });
const direct = [];
const proxied = [];
for (let i = 0; i < 50; i++) {
  await get({ host: "127.0.0.1", port, path: "/" });
  await get({ socketPath: proxy.socketPath, path: `http://127.0.0.1:${port}/` });
}
for (let i = 0; i < REQUESTS; i++) {
  direct.push(await get({ host: "127.0.0.1", port, path: "/" }));
  proxied.push(await get({ socketPath: proxy.socketPath, path: `http://127.0.0.1:${port}/` }));
}
await proxy.close();
upstream.close();
const d = summarize(direct);
const p = summarize(proxied);
printTable(`One HTTP GET, direct vs through the egress proxy (${REQUESTS} each, new connection per request)`, [
  { path: "direct", "p50 ms": d.p50, "p99 ms": d.p99 },
  { path: "egress proxy", "p50 ms": p.p50, "p99 ms": p.p99, "added p50 ms": p.p50 - d.p50 },
]);

const addedP50 = cs.p50 - cu.p50;
const startP50 = rows[3]["added p50 ms"];
console.log(
  `\nsandbox cost per shell command at p50: ${addedP50.toFixed(2)} ms (goal <= 30 ms): ${addedP50 <= 30 ? "met" : "NOT met"}`,
);
console.log(`starting a sandbox (once per capability and workspace) at p50: ${startP50.toFixed(1)} ms`);
await bare.close();
await limited.close();
const file = writeResult("sandbox", {
  load: loadavg(),
  bwrap: probe.version,
  perCommand: { unsandboxed: cu, sandboxed: cs },
  sandboxStart: rows,
  startAddedP50: startAdded,
  perCommandInside: pc,
  viewAddedP50: viewAdded,
  proxy: { direct: d, proxied: p },
  goalMet: addedP50 <= 30 && viewAdded <= 1,
});
console.log(`results: ${file}`);

// 4. Agent start: spawn until it connects to the Engine's socket, before vs in bubblewrap.
const agent = await measureAgentStart(probe, AGENT_STARTS);
printTable(
  `Agent start, spawn to its connection (${AGENT_STARTS} each, interleaved; load ${loadavg()[0].toFixed(2)})`,
  agent.rows,
);
const agentAdded = agent.after.p50 - agent.before.p50;
console.log(
  `Agent start added by its bubblewrap view at p50: ${agentAdded.toFixed(1)} ms (goal <= 50 ms): ${agentAdded <= 50 ? "met" : "NOT met"}`,
);
console.log(
  `results: ${writeResult("sandbox-agent-start", { load: loadavg(), bwrap: probe.version, agentStart: agent.rows, goalMet: agentAdded <= 50 })}`,
);
rmSync(dir, { recursive: true, force: true });
rmSync(ws, { recursive: true, force: true });
