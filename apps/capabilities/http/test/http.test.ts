import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { classifyAddress, createHttpCapability, manifestPath } from "@palisade/capability-http";
import type { Resolver } from "@palisade/capability-http";
import { manifestTools, serveForTest as start } from "@palisade/capability-sdk/testing";
import type { Harness } from "@palisade/capability-sdk/testing";

const PDF = Buffer.concat([Buffer.from("%PDF-1.4\n"), Buffer.from([0, 1, 2, 255, 254]), Buffer.alloc(3000, 7)]);
let server: Server;
let port: number;
let hits: string[] = [];
let h: Harness;
const resolved: string[] = [];

/** Test DNS: *.test names map to fixed addresses; nothing here asks a real resolver. */
const names: Record<string, string[]> = {
  "app.test": ["127.0.0.1"],
  "evil.test": ["127.0.0.1"],
  "metadata.test": ["169.254.169.254"],
  "internal.test": ["10.0.0.5"],
  "mixed.test": ["93.184.216.34", "192.168.1.10"],
  "v6.test": ["fd00::1"],
  "public.test": ["93.184.216.34"],
};
const resolver: Resolver = async (host) => {
  resolved.push(host);
  const list = names[host];
  if (!list) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
  return list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};

function handle(req: IncomingMessage, res: ServerResponse): void {
  hits.push(req.url ?? "");
  const url = new URL(req.url ?? "/", "http://x");
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    switch (url.pathname) {
      case "/text":
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("hello");
        return;
      case "/echo":
        res.writeHead(201, { "content-type": "application/json" }).end(
          JSON.stringify({
            method: req.method,
            host: req.headers.host,
            auth: req.headers.authorization ?? null,
            custom: req.headers["x-custom"] ?? null,
            body: Buffer.concat(chunks).toString(),
          }),
        );
        return;
      case "/report.pdf":
        res.writeHead(200, { "content-type": "application/pdf" }).end(PDF);
        return;
      case "/big-text":
        res.writeHead(200, { "content-type": "text/plain" }).end("a".repeat(150_000));
        return;
      case "/big-binary":
        res.writeHead(200, { "content-type": "application/octet-stream" }).end(Buffer.alloc(150_000, 1));
        return;
      case "/slow":
        setTimeout(() => res.end("late"), 5000).unref();
        return;
      case "/redirect":
        res
          .writeHead(Number(url.searchParams.get("status") ?? 302), { location: url.searchParams.get("to") ?? "/" })
          .end();
        return;
      default:
        res.writeHead(404).end();
    }
  });
}

const local = (p: string) => `http://127.0.0.1:${port}${p}`;
const app = (p: string) => `http://app.test:${port}${p}`;
const allowLocal = { network: { mode: "any", allow_private: ["127.0.0.1"] } };
const get = (url: string, config: unknown = {}) => h.invoke("http_request", { method: "GET", url }, config);

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
  h = await start(createHttpCapability({ resolver, limits: { maxResponseBytes: 100_000, timeoutMs: 1500 } }));
});
afterAll(async () => {
  await h.stop();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  hits = [];
  resolved.length = 0;
});

describe("classifyAddress", () => {
  const cases: [string, RegExp | undefined][] = [
    ["127.0.0.1", /loopback/],
    ["127.255.0.9", /loopback/],
    ["10.1.2.3", /private/],
    ["172.16.0.1", /private/],
    ["172.31.255.255", /private/],
    ["172.32.0.1", undefined],
    ["192.168.1.1", /private/],
    ["169.254.169.254", /link-local.*metadata/],
    ["100.64.0.1", /carrier-grade/],
    ["0.0.0.0", /unspecified/],
    ["224.0.0.1", /multicast/],
    ["255.255.255.255", /reserved/],
    ["8.8.8.8", undefined],
    ["93.184.216.34", undefined],
    ["::1", /loopback/],
    ["::", /unspecified/],
    ["fc00::1", /unique local/],
    ["fd12:3456::1", /unique local/],
    ["fe80::1", /link-local/],
    ["fe80::1%eth0", /link-local/],
    ["::ffff:127.0.0.1", /IPv4-mapped loopback/],
    ["::ffff:7f00:1", /IPv4-mapped loopback/],
    ["::ffff:169.254.169.254", /IPv4-mapped link-local/],
    ["::ffff:8.8.8.8", undefined],
    ["64:ff9b::a00:1", /NAT64 of private/],
    ["2002:7f00:1::", /6to4 of loopback/],
    ["ff02::1", /multicast/],
    ["2606:4700:4700::1111", undefined],
    ["2001:db8::1", /documentation/],
  ];
  it.each(cases)("%s", (address, expected) => {
    const got = classifyAddress(address);
    if (expected === undefined) expect(got).toBeUndefined();
    else expect(got).toMatch(expected);
  });
});

describe("SSRF refusals (default policy: public addresses only)", () => {
  const refused: [string, () => string, RegExp][] = [
    ["loopback IP with a live server", () => local("/text"), /127\.0\.0\.1 is a loopback address/],
    ["decimal loopback", () => `http://2130706433:${port}/text`, /127\.0\.0\.1 is a loopback/],
    ["hex loopback", () => `http://0x7f.1:${port}/text`, /127\.0\.0\.1 is a loopback/],
    ["IPv6 loopback", () => `http://[::1]:${port}/text`, /::1 is a loopback/],
    ["IPv4-mapped IPv6 loopback", () => `http://[::ffff:127.0.0.1]:${port}/text`, /IPv4-mapped loopback/],
    ["cloud metadata", () => "http://169.254.169.254/latest/meta-data/", /169\.254\.169\.254 is a link-local/],
    [
      "host name resolving to 127.0.0.1",
      () => `http://evil.test:${port}/text`,
      /127\.0\.0\.1 \(resolved from evil\.test\) is a loopback/,
    ],
    [
      "host name resolving to metadata",
      () => "http://metadata.test/",
      /resolved from metadata\.test\) is a link-local/,
    ],
    ["host name resolving to a private range", () => "http://internal.test/", /10\.0\.0\.5 .* private/],
    ["one private address among public ones", () => "http://mixed.test/", /192\.168\.1\.10 .* private/],
    ["host name resolving to IPv6 ULA", () => "http://v6.test/", /fd00::1 .* unique local/],
    ["file scheme", () => "file:///etc/passwd", /scheme "file"/],
    ["ftp scheme", () => "ftp://example.com/x", /scheme "ftp"/],
    ["gopher scheme", () => "gopher://127.0.0.1:70/", /scheme "gopher"/],
    ["credentials in URL", () => "http://user:pw@public.test/", /credentials in the URL/],
  ];
  it.each(refused)("refuses %s", async (_name, url, why) => {
    const { error, result } = await get(url());
    expect(error).toMatch(/^refused: /);
    expect(error).toMatch(why);
    expect(result).toEqual({});
    expect(hits).toEqual([]);
  });

  it("refuses localhost through the system resolver", async () => {
    const real = await start(createHttpCapability());
    try {
      const { error } = await real.invoke("http_request", { method: "GET", url: `http://localhost:${port}/text` }, {});
      expect(error).toMatch(/^refused: (127\.0\.0\.1|::1) \(resolved from localhost\) is a loopback address/);
      expect(hits).toEqual([]);
    } finally {
      await real.stop();
    }
  });
});

describe("allowed requests", () => {
  it("connects to the checked address, resolving once, keeping the Host header", async () => {
    const { result, error } = await h.invoke(
      "http_request",
      { method: "POST", url: app("/echo"), headers: { "X-Custom": "yes", Host: "spoofed.example" }, body: '{"a":1}' },
      allowLocal,
    );
    expect(error).toBe("");
    expect(result.status).toBe(201);
    expect(JSON.parse(String(result.body))).toEqual({
      method: "POST",
      host: `app.test:${port}`,
      auth: null,
      custom: "yes",
      body: '{"a":1}',
    });
    // app.test exists only in the injected resolver: the request reached it through the address checked.
    expect(resolved).toEqual(["app.test"]);
  });

  it("returns text inline", async () => {
    const { result } = await get(local("/text"), allowLocal);
    expect(result).toMatchObject({ status: 200, body: "hello", url: local("/text") });
    expect((result.headers as Record<string, string>)["content-type"]).toBe("text/plain; charset=utf-8");
  });

  it("stores a binary body as an output artifact with the same bytes", async () => {
    const { result } = await get(local("/report.pdf"), allowLocal);
    const artifact = result.artifact as {
      capability_artifact_id: string;
      filename: string;
      mime_type: string;
      size_bytes: number;
    };
    expect(artifact).toMatchObject({ filename: "report.pdf", mime_type: "application/pdf", size_bytes: PDF.length });
    expect(result.body).toBeUndefined();
    const parts: Buffer[] = [];
    for await (const chunk of h.client.downloadOutputArtifact({
      capabilityArtifactId: artifact.capability_artifact_id,
    })) {
      expect(chunk.error).toBe("");
      parts.push(Buffer.from(chunk.data));
    }
    expect(Buffer.concat(parts).equals(PDF)).toBe(true);
  });

  it("obeys the allowlist and mode none", async () => {
    const allowlist = {
      network: { mode: "allowlist", allow: [`app.test:${port}`, "*.example.org"], allow_private: true },
    };
    expect((await get(app("/text"), allowlist)).result.body).toBe("hello");
    expect((await get(`http://app.test:${port + 1}/text`, allowlist)).error).toMatch(/not in the network allowlist/);
    expect((await get(local("/text"), allowlist)).error).toMatch(
      /^refused: 127\.0\.0\.1:\d+ is not in the network allowlist/,
    );
    expect((await get(app("/text"), { network: { mode: "none" } })).error).toMatch(/network access is disabled/);
    expect((await get(app("/text"), { network: { mode: "sometimes" } })).error).toMatch(/network.mode must be/);
    expect(hits).toEqual(["/text"]);
  });
});

describe("redirects", () => {
  const redirect = (to: string, status = 302) => app(`/redirect?status=${status}&to=${encodeURIComponent(to)}`);

  it("follows allowed redirects, switching POST to GET on 303", async () => {
    const { result } = await h.invoke(
      "http_request",
      { method: "POST", url: redirect(app("/echo"), 303), body: "x" },
      allowLocal,
    );
    expect(JSON.parse(String(result.body))).toMatchObject({ method: "GET", body: "" });
    expect(result.redirects).toEqual([app("/echo")]);
  });

  it("re-checks every hop", async () => {
    for (const [to, why] of [
      ["http://169.254.169.254/latest/meta-data/", /169\.254\.169\.254 is a link-local/],
      ["http://internal.test/admin", /10\.0\.0\.5 \(resolved from internal\.test\) is a private/],
      ["file:///etc/passwd", /scheme "file"/],
      [`http://[::1]:${port}/text`, /::1 is a loopback/],
    ] as const) {
      hits = [];
      const { error } = await get(redirect(to), allowLocal);
      expect(error).toMatch(why);
      expect(hits).toHaveLength(1); // only the redirecting hop was reached
    }
  });

  it("drops credentials when the redirect changes origin", async () => {
    const { result } = await h.invoke(
      "http_request",
      { method: "GET", url: redirect(local("/echo"), 307), headers: { Authorization: "Bearer secret" } },
      allowLocal,
    );
    expect(JSON.parse(String(result.body))).toMatchObject({ auth: null });
    const same = await h.invoke(
      "http_request",
      { method: "GET", url: redirect(app("/echo"), 307), headers: { Authorization: "Bearer secret" } },
      allowLocal,
    );
    expect(JSON.parse(String(same.result.body))).toMatchObject({ auth: "Bearer secret" });
  });

  it("stops after 5 redirects", async () => {
    let url = app("/text");
    for (let i = 0; i < 6; i++) url = redirect(url);
    expect((await get(url, allowLocal)).error).toMatch(/too many redirects \(more than 5\)/);
  });
});

describe("size and time caps", () => {
  it("cuts text past the response cap, and does not store oversize binaries", async () => {
    const text = (await get(local("/big-text"), allowLocal)).result;
    expect(text).toMatchObject({ truncated: true });
    expect(String(text.body)).toHaveLength(100_000);
    expect(String(text.note)).toMatch(/longer than 100000 bytes and was cut/);
    const bin = (await get(local("/big-binary"), allowLocal)).result;
    expect(bin).toMatchObject({ truncated: true, note: "binary body larger than 100000 bytes; not stored" });
    expect(bin.artifact).toBeUndefined();
  });

  it("gives up on a response that takes too long", async () => {
    const started = Date.now();
    const { error } = await get(local("/slow"), allowLocal);
    expect(error).toMatch(/stopped: no complete response within 1500 ms/);
    expect(Date.now() - started).toBeLessThan(4000);
  });
});

describe("manifest.yaml", () => {
  it("declares the same tool as the code, asked before running", async () => {
    const { manifest, tools } = await manifestTools(manifestPath);
    expect(manifest).toMatchObject({ id: "http", network: { mode: "any" } });
    const cap = createHttpCapability();
    expect(tools).toEqual(
      cap.tools.map((t) => ({
        name: t.name,
        description: t.description,
        input_schema: t.inputSchema,
        recommended_policy: "ask",
        semantics: { kind: "http", hosts: ["url"], method: "method", content: ["url", "headers", "body"] },
      })),
    );
  });
});
