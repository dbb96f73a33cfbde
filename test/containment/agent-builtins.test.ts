// Every node: built-in module, imported under the Agent's exact flags, environment and
// namespaces: each one that can open a file, a socket or a process (or load native code) is
// either unavailable or refused, also where Node's permission model does not look (node:sqlite,
// unix sockets, signals, what glibc reads for os.userInfo). A built-in a new Node adds fails the
// first test until it is classified here.
import { builtinModules } from "node:module";
import { createSocket } from "node:dgram";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo, Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLikeAgent } from "./agent-harness.js";
import type { ProbeRun } from "./agent-harness.js";

/** Built-ins that can reach outside, and the attempts (in agent-probes/builtins.cjs) that try each way. */
const REACHING: Record<string, string[]> = {
  fs: ["fs.readFileSync", "fs.openSync", "fs.statSync", "fs.openAsBlob"],
  "fs/promises": ["fs.promises.readFile"],
  child_process: ["child_process.spawnSync", "child_process.fork"],
  cluster: ["cluster.fork"],
  worker_threads: ["worker_threads.Worker"],
  wasi: ["wasi.WASI"],
  inspector: ["inspector.open"],
  "inspector/promises": ["inspector.open"],
  trace_events: ["trace_events.createTracing"],
  v8: ["v8.writeHeapSnapshot"],
  process: [
    "process.report.writeReport",
    "process.binding",
    "process.dlopen",
    "process.execve",
    "process.loadEnvFile",
    "process.kill",
  ],
  module: ["module.createRequire"],
  crypto: ["crypto.setEngine"],
  os: ["os.userInfo"],
  "node:sqlite": ["sqlite.DatabaseSync"],
  net: ["net.connect(unix)", "net.connect(tcp)"],
  http: ["http.request(socketPath)", "fetch"],
  https: ["tls.connect(unix)"],
  tls: ["tls.connect(unix)"],
  http2: ["http2.connect(tcp)"],
  dgram: ["dgram.send"],
  dns: ["dns.resolve4"],
  "dns/promises": ["dns.resolve4"],
};

/** Built-ins that open nothing themselves (or only through one of the above), and why. */
const INERT: Record<string, string> = {
  ...Object.fromEntries(
    ["_http_agent", "_http_client", "_http_common", "_http_incoming", "_http_outgoing", "_http_server"].map((m) => [
      m,
      "http's internals: its sockets are net's",
    ]),
  ),
  ...Object.fromEntries(
    [
      "_stream_duplex",
      "_stream_passthrough",
      "_stream_readable",
      "_stream_transform",
      "_stream_wrap",
      "_stream_writable",
    ].map((m) => [m, "streams over handles already open"]),
  ),
  _tls_common: "tls's internals",
  _tls_wrap: "tls's internals: its sockets are net's",
  assert: "pure",
  "assert/strict": "pure",
  async_hooks: "in-process",
  buffer: "memory",
  console: "writes to stdout/stderr already open",
  constants: "numbers",
  diagnostics_channel: "in-process",
  domain: "in-process",
  events: "in-process",
  path: "strings",
  "path/posix": "strings",
  "path/win32": "strings",
  perf_hooks: "in-process timing",
  punycode: "strings",
  querystring: "strings",
  readline: "over streams already open",
  "readline/promises": "over streams already open",
  repl: "its history file goes through fs",
  stream: "in-process",
  "stream/consumers": "in-process",
  "stream/promises": "in-process",
  "stream/web": "in-process",
  string_decoder: "strings",
  sys: "util's alias",
  timers: "in-process",
  "timers/promises": "in-process",
  tty: "terminals on fds already open",
  url: "strings",
  util: "in-process",
  "util/types": "in-process",
  vm: "contexts in this process",
  zlib: "memory",
  "node:sea": "assets inside the running binary",
  "node:test": "runs test files through child_process",
  "node:test/reporters": "formats results",
};

let dir = "";
let unixServer: Server;
let tcpServer: Server;
const udp = createSocket("udp4");
const hits = { unix: 0, tcp: 0, udp: 0 };
let run: ProbeRun;
const SECRET = "outside-file-secret-5b2d";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pal-agent-builtins-"));
  writeFileSync(join(dir, "outside.txt"), `${SECRET}\n`);
  unixServer = createServer((s) => {
    hits.unix++;
    s.destroy();
  });
  tcpServer = createServer((s) => {
    hits.tcp++;
    s.destroy();
  });
  await new Promise<void>((resolve) => unixServer.listen(join(dir, "service.sock"), resolve));
  await new Promise<void>((resolve) => tcpServer.listen(0, "127.0.0.1", resolve));
  udp.on("message", (_m, from) => {
    hits.udp++;
    udp.send("pong", from.port, from.address);
  });
  await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
  run = await runLikeAgent(
    "builtins",
    {
      file: join(dir, "outside.txt"),
      socket: join(dir, "service.sock"),
      tcpPort: (tcpServer.address() as AddressInfo).port,
      udpPort: udp.address().port,
      pid: process.pid,
    },
    { runtimeDir: dir, cwd: dir, timeoutMs: 60_000 },
  );
}, 90_000);

afterAll(async () => {
  udp.close();
  await new Promise((r) => unixServer.close(r));
  await new Promise((r) => tcpServer.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe("node: built-ins under the Agent's flags", () => {
  it("every built-in module of this Node is classified: reaching outside (and tried) or inert", () => {
    const unclassified = builtinModules.filter((m) => !(m in REACHING) && !(m in INERT));
    expect(unclassified).toEqual([]);
  });

  it("each way a built-in opens a file, a socket or a process is unavailable or refused, and nothing outside is reached", () => {
    expect(run.result, `${run.stderr}\n${run.stdout}`).toBeDefined();
    const attempts = (run.result?.attempts ?? {}) as Record<string, string>;
    const tried = [...new Set(Object.values(REACHING).flat())];
    const notRefused = Object.fromEntries(
      tried.filter((a) => !attempts[a]?.startsWith("refused:")).map((a) => [a, attempts[a] ?? "(not tried)"]),
    );
    expect(notRefused).toEqual({});
    expect(hits).toEqual({ unix: 0, tcp: 0, udp: 0 });
    expect(run.stdout).not.toContain(SECRET);
  });

  it("node:sqlite is not there at all", () => {
    const imports = (run.result?.imports ?? {}) as Record<string, string>;
    expect(imports["node:sqlite"]).toBe("ERR_UNKNOWN_BUILTIN_MODULE");
  });
});
