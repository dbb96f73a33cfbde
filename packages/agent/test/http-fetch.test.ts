// The Agent's keep-alive fetch over node:http: what the openai SDK needs of fetch.
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpFetch } from "@palisade/agent";

let server: Server | undefined;
afterEach(async () => {
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; connections: () => number }> {
  let n = 0;
  server = createServer(handler);
  server.on("connection", () => n++);
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => n };
}

describe("createHttpFetch", () => {
  it("sends the method, headers and body, returns status and headers, and reuses one connection", async () => {
    const seen: Array<{ method: string; type: string; body: string }> = [];
    const s = await serve((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        seen.push({ method: req.method ?? "", type: req.headers["content-type"] ?? "", body });
        res.writeHead(429, { "x-test": "yes", "content-type": "application/json" }).end('{"error":"slow down"}');
      });
    });
    const f = createHttpFetch();
    for (let i = 0; i < 3; i++) {
      const res = await f(`${s.url}/v1/x`, { method: "post", headers: new Headers({ "content-type": "application/json" }), body: `{"i":${i}}` });
      expect(res.status).toBe(429);
      expect(res.headers.get("x-test")).toBe("yes");
      expect(await res.json()).toEqual({ error: "slow down" });
    }
    expect(seen).toEqual([0, 1, 2].map((i) => ({ method: "POST", type: "application/json", body: `{"i":${i}}` })));
    expect(s.connections()).toBe(1);
  });

  it("streams the body as it arrives and decodes gzip", async () => {
    let release!: () => void;
    const later = new Promise<void>((r) => (release = r));
    const s = await serve((req, res) => {
      if (req.url === "/gz") return void res.writeHead(200, { "content-encoding": "gzip" }).end(gzipSync("zipped text"));
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: one\n\n");
      void later.then(() => res.end("data: two\n\n"));
    });
    const f = createHttpFetch();
    expect(await (await f(`${s.url}/gz`)).text()).toBe("zipped text");
    const res = await f(`${s.url}/sse`);
    const reader = res.body!.getReader();
    const first = await reader.read(); // arrives before the server ends the response
    expect(new TextDecoder().decode(first.value)).toBe("data: one\n\n");
    release();
    const rest = await reader.read();
    expect(new TextDecoder().decode(rest.value)).toBe("data: two\n\n");
    expect((await reader.read()).done).toBe(true);
  });

  it("aborts before the response and mid-body: AbortError, and the server sees the request closed", async () => {
    let closed = 0;
    const s = await serve((req, res) => {
      res.on("close", () => closed++);
      if (req.url === "/hang") return;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: one\n\n");
    });
    const f = createHttpFetch();
    const early = new AbortController();
    const pending = f(`${s.url}/hang`, { signal: early.signal });
    setTimeout(() => early.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });

    const mid = new AbortController();
    const res = await f(`${s.url}/sse`, { signal: mid.signal });
    const reader = res.body!.getReader();
    await reader.read();
    mid.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });
    await expect.poll(() => closed).toBe(2);

    const already = new AbortController();
    already.abort();
    await expect(f(`${s.url}/sse`, { signal: already.signal })).rejects.toMatchObject({ name: "AbortError" });
  });

  it("reports an unreachable server as a TypeError like fetch", async () => {
    const s = await serve(() => {});
    const url = s.url;
    await new Promise((r) => server!.close(r));
    server = undefined;
    await expect(createHttpFetch()(`${url}/x`)).rejects.toBeInstanceOf(TypeError);
  });
});
