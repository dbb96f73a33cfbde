import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request } from "node:http";
import type { Server } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EgressProxy } from "@palisade/sandbox";
import type { EgressEvent, EgressProxyOptions } from "@palisade/sandbox";

let upstream: Server;
let port = 0;
let hits: string[] = [];
let dir = "";
let proxy: EgressProxy | undefined;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "pal-proxy-"));
  upstream = createServer((req, res) => {
    hits.push(`${req.method} ${req.url} host=${req.headers.host}`);
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => res.end(`upstream saw ${req.method} ${body}`));
  });
  await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
  port = (upstream.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((r) => upstream.close(r));
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  hits = [];
});

async function start(
  options: Partial<EgressProxyOptions>,
): Promise<{ events: EgressEvent[]; lookups: string[]; socket: string }> {
  const events: EgressEvent[] = [];
  const lookups: string[] = [];
  const socket = path.join(dir, `p${Math.random().toString(16).slice(2, 8)}.sock`);
  proxy = await EgressProxy.listen({
    socketPath: socket,
    allowHost: null,
    onConnection: (e) => events.push(e),
    // The real resolver, recording which names were asked for.
    resolve: async (host) => {
      lookups.push(host);
      const { lookup } = await import("node:dns/promises");
      return lookup(host, { all: true });
    },
    ...options,
  });
  return { events, lookups, socket };
}

function forward(
  socket: string,
  url: string,
  method = "GET",
  body = "",
  host?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath: socket,
        path: url,
        method,
        headers: { host: host ?? (URL.canParse(url) ? new URL(url).host : "x") },
      },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function tunnel(socket: string, authority: string, payload: string): Promise<{ head: string; reply: string }> {
  return new Promise((resolve, reject) => {
    const s = connect(socket);
    let data = "";
    s.on("data", (c: Buffer) => {
      data += c.toString();
      if (data.includes("\r\n\r\n") && data.startsWith("HTTP/1.1 200") && !data.includes("upstream saw"))
        s.write(payload);
    });
    s.on("error", reject);
    s.on("close", () => {
      const at = data.indexOf("\r\n\r\n");
      resolve({ head: data.slice(0, at), reply: data.slice(at + 4) });
    });
    s.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  });
}

describe("EgressProxy", () => {
  it("forwards a plain HTTP request to an allowed host and logs the connection with the address dialed", async () => {
    const { events, socket } = await start({ allowHost: (h) => h === "localhost", allowAddresses: ["127.0.0.1"] });
    const res = await forward(socket, `http://localhost:${port}/hello?x=1`, "POST", "data");
    expect(res).toEqual({ status: 200, text: "upstream saw POST data" });
    expect(hits).toEqual([`POST /hello?x=1 host=localhost:${port}`]);
    expect(events).toEqual([
      expect.objectContaining({ method: "POST", host: "localhost", port, allowed: true, address: "127.0.0.1" }),
    ]);
  });

  it("tunnels CONNECT to an allowed host", async () => {
    const { socket } = await start({
      allowHost: (h, p) => h === "localhost" && p === port,
      allowAddresses: ["127.0.0.1"],
    });
    const res = await tunnel(socket, `localhost:${port}`, "GET /t HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(res.head).toBe("HTTP/1.1 200 Connection Established");
    expect(res.reply).toContain("upstream saw GET");
    expect(hits).toEqual(["GET /t host=x"]);
  });

  it("refuses a host outside the allowlist without resolving its name, and the upstream is never hit", async () => {
    const { events, lookups, socket } = await start({ allowHost: (h) => h === "registry.npmjs.org" });
    const post = await forward(socket, `http://localhost:${port}/exfil`, "POST", "secret");
    expect(post.status).toBe(403);
    expect(post.text).toMatch(/localhost:\d+ is not in this capability's network allowlist/);
    const con = await tunnel(socket, `evil.example:443`, "");
    expect(con.head).toMatch(/^HTTP\/1.1 403/);
    expect(lookups).toEqual([]);
    expect(hits).toEqual([]);
    expect(events.map((e) => [e.host, e.allowed])).toEqual([
      ["localhost", false],
      ["evil.example", false],
    ]);
  });

  it("refuses loopback, private and metadata addresses after resolution, also with no host list (network: any)", async () => {
    const { events, lookups, socket } = await start({ allowHost: null });
    for (const url of [
      `http://localhost:${port}/`,
      `http://127.0.0.1:${port}/`,
      "http://169.254.169.254/latest/meta-data/",
      "http://10.0.0.1/",
      `http://[::ffff:127.0.0.1]:${port}/`,
    ]) {
      const res = await forward(socket, url);
      expect(res.status, url).toBe(403);
    }
    const con = await tunnel(socket, `127.0.0.1:${port}`, "");
    expect(con.head).toMatch(/^HTTP\/1.1 403/);
    expect(con.reply).toContain("127.0.0.1 is a loopback address");
    expect(lookups).toEqual(["localhost"]);
    expect(events.find((e) => e.host === "localhost")?.reason).toMatch(/refused localhost: .*loopback/);
    expect(hits).toEqual([]);
  });

  it("answers malformed requests with 400 and keeps serving", async () => {
    const { socket } = await start({ allowHost: null });
    expect((await forward(socket, "/relative")).status).toBe(400);
    expect((await tunnel(socket, "no-port", "")).head).toMatch(/^HTTP\/1.1 400/);
    expect((await forward(socket, `http://127.0.0.1:${port}/`)).status).toBe(403);
  });

  // Each names 127.0.0.1 or ::1, where the upstream listens (127.0.0.1 only, so the ::1 forms are
  // here for their refusal text), in a spelling a text-prefix check misses.
  it.each([
    "[0::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "[0:0:0:0:0:ffff:127.0.0.1]",
    "[0000:0000:0000:0000:0000:ffff:7f00:0001]",
    "[::FFFF:127.0.0.1]",
    "[::ffff:0:127.0.0.1]",
    "[::127.0.0.1]",
    "[64:ff9b::7f00:1]",
    "[0:0::1]",
    "2130706433",
    "0177.0.0.1",
    "0x7f.1",
    "127.1",
    "127.0.0.1.",
    "localhost.",
  ])("CONNECT %s:PORT never reaches the loopback listener (network: any)", async (host) => {
    const { events, socket } = await start({ allowHost: null });
    const con = await tunnel(
      socket,
      `${host}:${port}`,
      "GET /through HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    expect(con.head).toMatch(/^HTTP\/1.1 403/);
    expect(con.reply).toMatch(/loopback|IPv4-compatible/);
    expect(hits).toEqual([]);
    expect(events).toHaveLength(1);
    expect(events[0]?.allowed).toBe(false);
  });

  it("refuses what does not parse as a host with 400 and says why, without resolving it", async () => {
    const { lookups, socket } = await start({ allowHost: null });
    const zone = await tunnel(socket, `[fe80::1%25lo]:${port}`, "");
    expect(zone.head).toMatch(/^HTTP\/1.1 400/);
    expect(zone.reply).toMatch(/zone/);
    for (const bad of [
      `999.1.1.1:${port}`,
      `1.2.3.4.5:${port}`,
      `[1::2::3]:${port}`,
      `a@127.0.0.1:${port}`,
      `%31%32%37.0.0.1:${port}`,
      `127.0.0.1:0`,
    ]) {
      const res = await tunnel(socket, bad, "");
      expect(res.head, bad).toMatch(/^HTTP\/1.1 400/);
    }
    expect(lookups).toEqual([]);
    expect(hits).toEqual([]);
  });

  it("dials the canonical address it checked: 0x7f.1 is 127.0.0.1, exempted by its canonical form", async () => {
    const { events, lookups, socket } = await start({ allowHost: null, allowAddresses: ["127.0.0.1"] });
    const con = await tunnel(socket, `0x7f.1:${port}`, "GET /hex HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(con.head).toBe("HTTP/1.1 200 Connection Established");
    expect(hits).toEqual(["GET /hex host=x"]);
    expect(lookups).toEqual([]);
    expect(events).toEqual([expect.objectContaining({ host: "127.0.0.1", allowed: true, address: "127.0.0.1" })]);
  });

  it("sends plain HTTP with the Host of the checked target, never the client's (no fronting through an allowed host)", async () => {
    const { socket } = await start({ allowHost: (h) => h === "localhost", allowAddresses: ["127.0.0.1"] });
    const res = await forward(socket, `http://localhost:${port}/fronted`, "GET", "", "evil.example");
    expect(res.status).toBe(200);
    expect(hits).toEqual([`GET /fronted host=localhost:${port}`]);
  });
});
