// Imports every node: built-in module, then tries each way a built-in can open a file, a socket
// or a process (or load native code) against targets outside what the Agent is given.
// Input: {"file", "socket", "tcpPort", "udpPort", "pid"}. Prints {"imports": {...}, "attempts": {...}}.
const { builtinModules } = require("node:module");
const input = JSON.parse(process.argv[1]);
const imports = {};
for (const name of builtinModules) {
  const id = name.startsWith("node:") ? name : `node:${name}`;
  try {
    require(id);
    imports[name] = "ok";
  } catch (e) {
    imports[name] = e.code ?? e.message;
  }
}
const mod = (id) => (imports[id.replace(/^node:/, "")] === "ok" || imports[id] === "ok" ? require(id) : undefined);
const attempts = {};
const outcome = (e) => `refused:${e.code ?? e.message}`;
const sync = (name, fn) => {
  try {
    attempts[name] = `done:${String(fn()).slice(0, 80)}`;
  } catch (e) {
    attempts[name] = outcome(e);
  }
};
const later = (name, fn, ms = 3000) =>
  new Promise((resolve) => {
    const settle = (v) => {
      if (attempts[name] === undefined) attempts[name] = v;
      resolve();
    };
    setTimeout(() => settle("refused:timeout"), ms);
    try {
      fn(
        (v) => settle(`done:${v}`),
        (e) => settle(outcome(e)),
      );
    } catch (e) {
      settle(outcome(e));
    }
  });

sync("fs.readFileSync", () => require("node:fs").readFileSync(input.file, "utf8"));
sync("fs.openSync", () => require("node:fs").openSync(input.file, "r"));
sync("fs.statSync", () => require("node:fs").statSync(input.file).size);
sync("child_process.spawnSync", () => {
  const r = require("node:child_process").spawnSync("/bin/sh", ["-c", "echo ran"], { encoding: "utf8" });
  if (r.error) throw r.error;
  return r.stdout;
});
sync("child_process.fork", () => require("node:child_process").fork(input.file).pid);
sync("cluster.fork", () => require("node:cluster").fork().process.pid);
sync("worker_threads.Worker", () => new (require("node:worker_threads").Worker)("1", { eval: true }).threadId);
sync("wasi.WASI", () => {
  new (require("node:wasi").WASI)({ version: "preview1", preopens: { "/": "/" } });
  return "made";
});
sync("inspector.open", () => {
  require("node:inspector").open(0, "127.0.0.1");
  return require("node:inspector").url();
});
sync(
  "trace_events.createTracing",
  () =>
    require("node:trace_events")
      .createTracing({ categories: ["node"] })
      .enable() ?? "enabled",
);
sync("v8.writeHeapSnapshot", () => require("node:v8").writeHeapSnapshot(`${input.file}.heapsnapshot`));
sync("process.report.writeReport", () => process.report.writeReport(`${input.file}.report.json`));
sync("process.binding", () => typeof process.binding("fs"));
sync("process.dlopen", () => process.dlopen({ exports: {} }, `${input.file}.node`));
sync("process.execve", () => (typeof process.execve === "function" ? process.execve("/bin/true", ["true"]) : "absent"));
sync("process.loadEnvFile", () => process.loadEnvFile(input.file));
sync("process.kill", () => process.kill(input.pid, 0));
sync("module.createRequire", () => require("node:module").createRequire(input.file)(input.file));
sync("crypto.setEngine", () => require("node:crypto").setEngine(`${input.file}.so`));
sync("os.userInfo", () => JSON.stringify(require("node:os").userInfo()));
sync("sqlite.DatabaseSync", () => {
  const sqlite = mod("node:sqlite");
  if (!sqlite) throw Object.assign(new Error("unavailable"), { code: imports["node:sqlite"] });
  const db = new sqlite.DatabaseSync(input.file, { readOnly: true });
  db.close();
  return "opened";
});

(async () => {
  await later("fs.promises.readFile", (ok, fail) =>
    require("node:fs/promises").readFile(input.file, "utf8").then(ok, fail),
  );
  await later("fs.openAsBlob", (ok, fail) =>
    require("node:fs")
      .openAsBlob(input.file)
      .then((b) => b.text())
      .then(ok, fail),
  );
  await later("net.connect(unix)", (ok, fail) =>
    require("node:net")
      .connect(input.socket)
      .on("connect", () => ok("connected"))
      .on("error", fail),
  );
  await later("net.connect(tcp)", (ok, fail) =>
    require("node:net")
      .connect(input.tcpPort, "127.0.0.1")
      .on("connect", () => ok("connected"))
      .on("error", fail),
  );
  await later("http.request(socketPath)", (ok, fail) =>
    require("node:http")
      .get({ socketPath: input.socket, path: "/" }, (r) => ok(r.statusCode))
      .on("error", fail),
  );
  await later("tls.connect(unix)", (ok, fail) =>
    require("node:tls")
      .connect({ path: input.socket, rejectUnauthorized: false })
      .on("secureConnect", () => ok("connected"))
      .on("error", fail),
  );
  await later("http2.connect(tcp)", (ok, fail) =>
    require("node:http2")
      .connect(`http://127.0.0.1:${input.tcpPort}`)
      .on("connect", () => ok("connected"))
      .on("error", fail),
  );
  // Reached only if the listener outside answers (a sandbox's own loopback takes the datagram).
  await later("dgram.send", (ok, fail) => {
    const s = require("node:dgram").createSocket("udp4");
    s.on("message", (m) => ok(`answered:${m}`));
    s.send("probe", input.udpPort, "127.0.0.1", (e) => e && fail(e));
  });
  await later("dns.resolve4", (ok, fail) =>
    require("node:dns").resolve4("example.com", (e, a) => (e ? fail(e) : ok(a.join(",")))),
  );
  await later("fetch", (ok, fail) => fetch(`http://127.0.0.1:${input.tcpPort}/`).then((r) => ok(r.status), fail));
  process.stdout.write(JSON.stringify({ imports, attempts }));
  process.exit(0);
})();
