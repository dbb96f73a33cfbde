import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { Server } from "node:http";
import { connect, createServer as createNetServer } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareSandbox } from "@palisade/sandbox";
import type { EgressEvent } from "@palisade/sandbox";
import { probe, runIn, visibleTempDir } from "./helpers.js";

let root = "";
let ws = "";
let home = "";
let data = "";
let outside = "";

beforeAll(() => {
  root = visibleTempDir("pal-sbx-");
  ws = path.join(root, "ws");
  home = path.join(root, "home");
  data = path.join(root, "data");
  outside = path.join(root, "outside.txt");
  for (const d of [ws, home, data, path.join(home, ".ssh"), path.join(home, ".aws")]) mkdirSync(d, { recursive: true });
  writeFileSync(outside, "original\n");
  writeFileSync(path.join(home, ".ssh", "id_ed25519"), "SECRET-SSH-KEY\n");
  writeFileSync(path.join(home, ".aws", "credentials"), "SECRET-AWS\n");
  writeFileSync(path.join(home, ".npmrc"), "//registry.npmjs.org/:_authToken=SECRET-NPM\n");
  writeFileSync(path.join(home, ".bashrc"), "# bashrc\n");
  writeFileSync(path.join(data, "palisade.db"), "SECRET-DB\n");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const spec = (extra: object = {}) => ({
  filesystem: "workspace" as const,
  workspace: ws,
  network: "none" as const,
  home,
  protect: [data],
  ...extra,
});

function listen(): Promise<{ server: Server; port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.end("reached\n");
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as { port: number }).port, hits })),
  );
}

describe.skipIf(!probe.available)("a sandboxed process", () => {
  it("writes in the workspace, not elsewhere, and has a private /tmp", async () => {
    const marker = `pal-marker-${process.pid}`;
    const r = await runIn(
      { spec: spec() },
      `echo made > new.txt; echo changed > ${outside}; echo x > /etc/${marker}; echo x > ${home}/.bashrc; echo tmp > /tmp/${marker} && cat /tmp/${marker}`,
    );
    expect(readFileSync(path.join(ws, "new.txt"), "utf8")).toBe("made\n");
    expect(readFileSync(outside, "utf8")).toBe("original\n");
    expect(readFileSync(path.join(home, ".bashrc"), "utf8")).toBe("# bashrc\n");
    expect(existsSync(`/etc/${marker}`)).toBe(false);
    expect(existsSync(`/tmp/${marker}`)).toBe(false);
    expect(r.out).toMatch(/Read-only file system/);
    expect(r.out).toContain("tmp\n");
  });

  it("never sees the home (its credentials or anything else), the protected data directory or password hashes", async () => {
    const r = await runIn(
      { spec: spec() },
      `cat ${home}/.ssh/id_ed25519 ${home}/.aws/credentials ${home}/.npmrc ${data}/palisade.db /etc/shadow; ls -a ${home}/.ssh ${data}; cat ${home}/.bashrc; echo "home: $(ls -A ${home} | wc -l) entries"`,
    );
    expect(r.out).not.toMatch(/SECRET|root:/);
    expect(r.out).not.toContain("# bashrc");
    // The home inside is a private, empty directory.
    expect(r.out).toContain("home: 0 entries");
  });

  it("reaches no unix socket of the host that the spec does not list; a listed one connects", async () => {
    const sockets = visibleTempDir("pal-sock-");
    const listed = visibleTempDir("pal-sock-listed-");
    const hits: string[] = [];
    const servers = [path.join(sockets, "db.sock"), path.join(home, "agent.sock"), path.join(listed, "ok.sock")].map(
      (p) => {
        const server = createNetServer((c) => {
          hits.push(p);
          c.end("hello\n");
        });
        server.listen(p);
        return server;
      },
    );
    try {
      const py = (p: string): string =>
        `python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('${p}'); print('connected ${path.basename(p)}', s.recv(10))" 2>&1 | tail -1`;
      const r = await runIn(
        { spec: spec({ sockets: [listed] }) },
        [py(path.join(sockets, "db.sock")), py(path.join(home, "agent.sock")), py(path.join(listed, "ok.sock"))].join(
          "; ",
        ),
      );
      expect(r.out).toContain("connected ok.sock");
      expect(r.out).not.toContain("connected db.sock");
      expect(r.out).not.toContain("connected agent.sock");
      expect(hits).toEqual([path.join(listed, "ok.sock")]);
    } finally {
      for (const s of servers) s.close();
      rmSync(sockets, { recursive: true, force: true });
      rmSync(listed, { recursive: true, force: true });
    }
  });

  it("names only root, its own user and nobody in /etc/passwd, and only localhost in /etc/hosts", async () => {
    const r = await runIn(
      { spec: spec() },
      "cat /etc/passwd /etc/group /etc/hosts; getent passwd $(id -u) | cut -d: -f6",
    );
    const users = r.out
      .split("\n")
      .filter((l) => /^[^:\s]+:x:\d+:\d+:/.test(l))
      .map((l) => l.split(":")[0]);
    expect(new Set(users)).toEqual(
      new Set(["root", "nobody", ...(process.getuid?.() === 0 ? [] : [os.userInfo().username])]),
    );
    expect(r.out).toContain("127.0.0.1\tlocalhost");
    expect(r.out.trim().split("\n").at(-1)).toBe(home);
  });

  it("cannot reach outside the workspace through symbolic or hard links", async () => {
    const r = await runIn(
      { spec: spec() },
      `ln -s ../../../.. up; cat up${data}/palisade.db; echo changed > up${outside}; ln ${outside} hard; cat up/etc/shadow; echo done`,
    );
    expect(r.out).toContain("done");
    expect(r.out).not.toContain("SECRET");
    expect(readFileSync(outside, "utf8")).toBe("original\n");
    expect(existsSync(path.join(ws, "hard"))).toBe(false);
    expect(statSync(outside).nlink).toBe(1);
  });

  it("sees only its own processes: no other environment, no signal reaches outside", async () => {
    const decoy = spawn("/bin/sleep", ["30"], { env: { DECOY_SECRET: "SECRET-ENV" }, stdio: "ignore" });
    try {
      const pid = decoy.pid ?? 0;
      const r = await runIn(
        { spec: spec() },
        `ps auxeww; cat /proc/${pid}/environ; kill -9 ${pid} ${process.pid}; ls /proc | grep -c '^[0-9]'`,
      );
      expect(r.out).not.toContain("SECRET-ENV");
      expect(decoy.exitCode).toBeNull();
      expect(() => process.kill(pid, 0)).not.toThrow();
    } finally {
      decoy.kill("SIGKILL");
    }
  });

  it("has no network with network: none; a listener on the host is never reached", async () => {
    const l = await listen();
    try {
      const r = await runIn(
        { spec: spec() },
        `cut -d: -f1 /proc/net/dev | tail -n +3; curl -sS -m 3 http://127.0.0.1:${l.port}/; getent hosts example.com || echo no-dns`,
      );
      expect(
        r.out
          .split("\n")
          .filter((s) => /^\s*\w+$/.test(s))
          .map((s) => s.trim()),
      ).toEqual(["lo"]);
      expect(r.out).toContain("no-dns");
      expect(l.hits).toEqual([]);
    } finally {
      l.server.close();
    }
  });

  it("with network: allowlist, reaches allowed hosts through the proxy and nothing else", async () => {
    const allowed = await listen();
    const other = await listen();
    const events: EgressEvent[] = [];
    try {
      const r = await runIn(
        {
          spec: spec({ network: "allowlist" }),
          egress: {
            allowHost: (h, p) => h === "localhost" && p === allowed.port,
            allowAddresses: ["127.0.0.1"],
            onConnection: (e) => events.push(e),
          },
        },
        // NO_PROXY (localhost stays inside the sandbox) is cleared so that "localhost" goes to the proxy.
        `export NO_PROXY= no_proxy=; curl -sS -m 5 http://localhost:${allowed.port}/ok; curl -sS -m 5 -X POST -d secret http://localhost:${other.port}/exfil; ` +
          `curl -sS -m 5 --noproxy '*' http://127.0.0.1:${other.port}/direct; curl -sS -m 5 https://example.com/; echo end`,
      );
      expect(r.out).toContain("reached");
      expect(r.out).toContain("end");
      expect(allowed.hits).toEqual(["GET /ok"]);
      expect(other.hits).toEqual([]);
      expect(events.map((e) => `${e.method} ${e.host}:${e.port} ${e.allowed}`)).toEqual([
        `GET localhost:${allowed.port} true`,
        `POST localhost:${other.port} false`,
        "CONNECT example.com:443 false",
      ]);
    } finally {
      allowed.server.close();
      other.server.close();
    }
  });

  it("enforces the pids and file size limits and reports how", async () => {
    const r = await runIn(
      { spec: spec(), resources: { pids: 40, fileSizeMb: 4, cpuSeconds: 60, memoryMb: 256 } },
      // dd first: once the pids limit is reached, the shell cannot fork anything else.
      `dd if=/dev/zero of=big bs=1M count=20 2>&1 | tail -1; (for i in $(seq 1 80); do sleep 2 & done) 2>/dev/null; echo end`,
    );
    expect(r.out).toContain("end");
    expect(r.out).toMatch(/File size limit exceeded|Killed/);
    expect(statSync(path.join(ws, "big")).size).toBeLessThanOrEqual(4 * 1024 * 1024);
    rmSync(path.join(ws, "big"));
    const by = Object.fromEntries(r.sandbox.applied.map((a) => [a.limit, a.by]));
    expect(by.fileSizeMb).toBe("rlimit");
    expect(by.cpuSeconds).toBe("rlimit");
    expect(["cgroup", "rlimit"]).toContain(by.pids);
  });

  it("contains a fork bomb (pids limit): the host is unaffected and the sandbox ends", async () => {
    const started = Date.now();
    const enforced = (sandbox: { applied: Array<{ limit: string; by: string }> }): void => {
      // Never start a fork bomb that nothing limits. (The script after the bomb uses only shell
      // builtins: with every pid taken, nothing inside can fork, by design.)
      if (sandbox.applied.find((a) => a.limit === "pids")?.by === "none")
        throw new Error("the pids limit is not enforced here");
    };
    const r = await runIn(
      { spec: spec(), resources: { pids: 32 }, beforeRun: enforced },
      `(bomb() { bomb | bomb & }; bomb); echo still-here`,
      30_000,
    );
    expect(r.out).toContain("still-here");
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(execFileSync("/bin/echo", ["host ok"]).toString()).toBe("host ok\n");
  });

  it("relays a unix socket outside to a TCP port inside, which nothing else outside can reach", async () => {
    const runDir = mkdtempSync("/tmp/pal-in-");
    const sandbox = await prepareSandbox({
      spec: spec(),
      runDir,
      inboundPort: 50999,
      command: [
        process.execPath,
        "-e",
        "require('http').createServer((q,s)=>s.end('inside '+q.url)).listen(50999,'127.0.0.1')",
      ],
      env: { PATH: "/usr/bin:/bin" },
    });
    const child = spawn(sandbox.argv[0] ?? "", sandbox.argv.slice(1), { env: sandbox.env, stdio: "ignore" });
    try {
      const ask = (target: string | number): Promise<string> =>
        new Promise((resolve) => {
          const s = typeof target === "number" ? connect(target, "127.0.0.1") : connect(target);
          let text = "";
          s.on("data", (c: Buffer) => (text += c.toString()));
          s.on("error", (e: NodeJS.ErrnoException) => resolve(`error ${e.code}`));
          s.on("close", () => resolve(text));
          s.write("GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
        });
      let reply = "";
      for (let i = 0; i < 100 && !reply.includes("inside"); i++) {
        reply = await ask(sandbox.inboundSocket ?? "");
        if (!reply.includes("inside")) await new Promise((r) => setTimeout(r, 100));
      }
      expect(reply).toContain("inside /x");
      expect(await ask(50999)).toBe("error ECONNREFUSED");
    } finally {
      child.kill("SIGKILL");
      await new Promise((r) => child.once("close", r));
      await sandbox.close();
    }
  });

  it("runs code that lives under /tmp (a checkout there), read-only, while the rest of /tmp stays private", async () => {
    const codeDir = mkdtempSync("/tmp/pal-code-");
    const script = path.join(codeDir, "tool.sh");
    writeFileSync(script, "echo ran-from-tmp; ls /tmp; echo x > $0.changed 2>&1 || true\n", { mode: 0o755 });
    writeFileSync(path.join(codeDir, "..", `pal-tmp-secret-${process.pid}`), "SECRET-TMP\n");
    try {
      const runDir = mkdtempSync("/tmp/pal-sbx-");
      const sandbox = await prepareSandbox({
        spec: spec(),
        runDir,
        command: ["/bin/sh", script],
        env: { PATH: "/usr/bin:/bin" },
      });
      const child = spawn(sandbox.argv[0] ?? "", sandbox.argv.slice(1), {
        env: sandbox.env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (c: Buffer) => (out += c.toString()));
      child.stderr.on("data", (c: Buffer) => (out += c.toString()));
      await new Promise((resolve) => child.on("close", resolve));
      await sandbox.close();
      expect(out).toContain("ran-from-tmp");
      expect(out).toContain(path.basename(codeDir));
      expect(out).not.toContain(`pal-tmp-secret-${process.pid}`);
      expect(existsSync(`${script}.changed`)).toBe(false);
    } finally {
      rmSync(codeDir, { recursive: true, force: true });
      rmSync(path.join(codeDir, "..", `pal-tmp-secret-${process.pid}`), { force: true });
    }
  });

  it("runs a program named relative to its configured working directory, which is bound read-only", async () => {
    const capDir = visibleTempDir("pal-cap-");
    writeFileSync(path.join(capDir, "tool.sh"), "echo ran-in-cwd; pwd; echo x > changed 2>&1 || echo cannot-write\n");
    try {
      const runDir = mkdtempSync("/tmp/pal-sbx-");
      const sandbox = await prepareSandbox({
        spec: { filesystem: "none", network: "none", home, cwd: capDir },
        runDir,
        command: ["/bin/sh", "tool.sh"],
        env: { PATH: "/usr/bin:/bin" },
      });
      const out = execFileSync(sandbox.argv[0] ?? "", sandbox.argv.slice(1), { env: sandbox.env }).toString();
      await sandbox.close();
      expect(out).toContain("ran-in-cwd");
      expect(out).toContain(capDir);
      expect(out).toContain("cannot-write");
      expect(existsSync(path.join(capDir, "changed"))).toBe(false);
    } finally {
      rmSync(capDir, { recursive: true, force: true });
    }
  });

  it("never brings the home in as code, even with a package.json there", async () => {
    writeFileSync(path.join(home, "package.json"), "{}\n");
    writeFileSync(path.join(home, "tool.sh"), "echo ran-from-home; cat $HOME/.bashrc; ls -A $HOME\n");
    try {
      const sandbox = await prepareSandbox({
        spec: spec(),
        runDir: mkdtempSync("/tmp/pal-sbx-"),
        command: ["/bin/sh", path.join(home, "tool.sh")],
        env: { PATH: "/usr/bin:/bin" },
      });
      const out = execFileSync(sandbox.argv[0] ?? "", sandbox.argv.slice(1), { env: sandbox.env }).toString();
      await sandbox.close();
      // Only the program file itself is bound: it runs, and the rest of the home stays out.
      expect(out).toContain("ran-from-home");
      expect(out).not.toContain("# bashrc");
      expect(out).not.toMatch(/\.ssh|\.aws|\.npmrc/);
    } finally {
      rmSync(path.join(home, "package.json"));
      rmSync(path.join(home, "tool.sh"));
    }
  });

  it("runs a script outside any package with the files beside it, read-only, and nothing else of its parent", async () => {
    const tools = visibleTempDir("pal-tools-");
    const capDir = path.join(tools, "cap");
    mkdirSync(capDir);
    writeFileSync(path.join(capDir, "lib.sh"), "greeting=from-lib\n");
    writeFileSync(
      path.join(capDir, "main.sh"),
      'cd "$(dirname "$0")"; . ./lib.sh; echo "$greeting"; echo x > lib.sh 2>/dev/null || echo cannot-write; ls ..\n',
    );
    writeFileSync(path.join(tools, "other-secret.txt"), "SECRET-OTHER\n");
    try {
      const sandbox = await prepareSandbox({
        spec: { filesystem: "none", network: "none", home },
        runDir: mkdtempSync("/tmp/pal-sbx-"),
        command: ["/bin/sh", path.join(capDir, "main.sh")],
        env: { PATH: "/usr/bin:/bin" },
      });
      const out = execFileSync(sandbox.argv[0] ?? "", sandbox.argv.slice(1), { env: sandbox.env }).toString();
      await sandbox.close();
      expect(out).toContain("from-lib");
      expect(out).toContain("cannot-write");
      expect(out).not.toContain("other-secret");
      expect(readFileSync(path.join(capDir, "lib.sh"), "utf8")).toBe("greeting=from-lib\n");
    } finally {
      rmSync(tools, { recursive: true, force: true });
    }
  });

  it("dies with its parent", async () => {
    const tag = `${Date.now() % 1000}.${process.pid}`;
    const sandbox = await prepareSandbox({
      spec: spec(),
      runDir: mkdtempSync("/tmp/pal-die-"),
      command: ["/bin/sleep", tag],
      env: { PATH: "/usr/bin:/bin" },
    });
    const child = spawn(sandbox.argv[0] ?? "", sandbox.argv.slice(1), { env: sandbox.env, stdio: "ignore" });
    const alive = (): boolean => {
      try {
        return (
          execFileSync("pgrep", ["-f", `^/bin/sleep ${tag}$`])
            .toString()
            .trim() !== ""
        );
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 50 && !alive(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive()).toBe(true);
    child.kill("SIGKILL");
    for (let i = 0; i < 50 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive()).toBe(false);
    await sandbox.close();
  });
});

describe("probeSandbox", () => {
  it("says whether sandboxes can be made, with a reason when not", () => {
    if (probe.available) expect(probe).toMatchObject({ available: true, version: expect.stringMatching(/^\d+\.\d+/) });
    else expect(probe.reason).toMatch(/bubblewrap|namespace/);
  });
});
