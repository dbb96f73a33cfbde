// Capabilities reached by `address` over TLS: a real TLS gRPC capability server with certificates
// made here by openssl; server verification, mTLS, and plain TCP to a non-loopback host refused
// unless `insecure: true`.
import { execFileSync } from "node:child_process";
import { lookup } from "node:dns/promises";
import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { ServerCredentials } from "@grpc/grpc-js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { RpcServer } from "@palisade/protocol";
import { Capability } from "@palisade/protocol/capability";
import type { CapabilityHost } from "@palisade/capabilities";
import { ValidationError, validateCapabilityConfigs } from "@palisade/capabilities";
import { owner, startHost, tempDir, tool, writeManifest } from "./helpers.js";

let certs: string;
const hosts: CapabilityHost[] = [];
const servers: RpcServer[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop()));
  await Promise.all(servers.splice(0).map((s) => s.close(0)));
});

function openssl(args: string[]): void {
  execFileSync("openssl", args, { cwd: certs, stdio: ["ignore", "ignore", "pipe"] });
}

/** A CA, a server certificate it signed (127.0.0.1, localhost and this host's name), a client certificate, and a stranger CA. */
beforeAll(() => {
  certs = tempDir("palisade-tls-");
  const days = ["-days", "2"];
  for (const ca of ["ca", "other-ca"]) {
    openssl([
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      `${ca}-key.pem`,
      "-out",
      `${ca}.pem`,
      "-subj",
      `/CN=${ca}`,
      ...days,
    ]);
  }
  writeFileSync(
    join(certs, "server.ext"),
    `subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:${hostname()},DNS:capability.test\n`,
  );
  openssl([
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "server-key.pem",
    "-out",
    "server.csr",
    "-subj",
    "/CN=capability.test",
  ]);
  openssl([
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca-key.pem",
    "-CAcreateserial",
    "-out",
    "server.pem",
    "-extfile",
    "server.ext",
    ...days,
  ]);
  openssl([
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "client-key.pem",
    "-out",
    "client.csr",
    "-subj",
    "/CN=palisade-engine",
  ]);
  openssl([
    "x509",
    "-req",
    "-in",
    "client.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca-key.pem",
    "-CAcreateserial",
    "-out",
    "client.pem",
    ...days,
  ]);
}, 60_000);

const read = (name: string): Buffer => readFileSync(join(certs, name));

/** A capability server on 127.0.0.1 with `credentials`; `calls` counts the Invokes that reached it. */
async function serve(credentials: ServerCredentials): Promise<{ port: number; calls: () => number }> {
  let calls = 0;
  const rpc = new RpcServer();
  rpc.add(Capability, {
    invoke: async () => {
      calls++;
      return { resultJson: new TextEncoder().encode(JSON.stringify({ over: "tls" })) };
    },
    async *streamInvoke() {
      yield { done: true };
    },
    healthcheck: async () => ({ ready: true, message: "tls ok" }),
    uploadInputArtifact: async () => ({ error: "no artifacts" }),
    async *downloadOutputArtifact() {
      yield { error: "no artifacts", done: true };
    },
  });
  servers.push(rpc);
  const port = await new Promise<number>((resolve, reject) =>
    rpc.grpc.bindAsync("127.0.0.1:0", credentials, (err, p) => (err ? reject(err) : resolve(p))),
  );
  return { port, calls: () => calls };
}

const tlsServer = (requireClientCert = false): ServerCredentials =>
  ServerCredentials.createSsl(
    read("ca.pem"),
    [{ cert_chain: read("server.pem"), private_key: read("server-key.pem") }],
    requireClientCert,
  );

async function host(entry: Record<string, unknown>): Promise<CapabilityHost> {
  const manifest = writeManifest(tempDir(), { id: "remote", tools: [tool("t")] });
  const { host: h } = await startHost([{ id: "remote", manifest, ...entry }], {
    startupTimeoutMs: 1500,
    healthCallTimeoutMs: 1000,
  });
  hosts.push(h);
  return h;
}

describe("address over TLS", () => {
  it("verifies the server against tls.ca and calls it", async () => {
    const srv = await serve(tlsServer());
    const h = await host({ address: `127.0.0.1:${srv.port}`, tls: { ca: join(certs, "ca.pem") } });
    expect(h.status()[0]).toMatchObject({
      state: "ready",
      message: "tls ok",
      channel: `TLS to 127.0.0.1:${srv.port} (server verified)`,
      warnings: [],
    });
    expect((await h.invoke("remote__t", {}, owner)).result).toEqual({ over: "tls" });
    expect(srv.calls()).toBe(1);
  });

  it("refuses a server whose certificate another CA signed: no call reaches it", async () => {
    const srv = await serve(tlsServer());
    const h = await host({ address: `127.0.0.1:${srv.port}`, tls: { ca: join(certs, "other-ca.pem") } });
    expect(h.status()[0]?.state).toBe("not_ready");
    expect(h.status()[0]?.message).toMatch(/Healthcheck failed: UNAVAILABLE: .*certificate/);
    const r = await h.invoke("remote__t", {}, owner);
    expect(r.ok).toBe(false);
    expect(srv.calls()).toBe(0);
  });

  it("checks the certificate's name: serverName must match it", async () => {
    const srv = await serve(tlsServer());
    const good = await host({
      address: `127.0.0.1:${srv.port}`,
      tls: { ca: join(certs, "ca.pem"), serverName: "capability.test" },
    });
    expect(good.status()[0]?.state).toBe("ready");
    const bad = await host({
      address: `127.0.0.1:${srv.port}`,
      tls: { ca: join(certs, "ca.pem"), serverName: "elsewhere.test" },
    });
    expect(bad.status()[0]?.state).toBe("not_ready");
  });

  it("mTLS: a server that requires a client certificate answers only with tls.cert and tls.key", async () => {
    const srv = await serve(tlsServer(true));
    const without = await host({ address: `127.0.0.1:${srv.port}`, tls: { ca: join(certs, "ca.pem") } });
    expect(without.status()[0]?.state).toBe("not_ready");
    const withCert = await host({
      address: `127.0.0.1:${srv.port}`,
      tls: { ca: join(certs, "ca.pem"), cert: join(certs, "client.pem"), key: join(certs, "client-key.pem") },
    });
    expect(withCert.status()[0]).toMatchObject({
      state: "ready",
      channel: `mTLS to 127.0.0.1:${srv.port} (server verified, client certificate)`,
    });
    expect((await withCert.invoke("remote__t", {}, owner)).ok).toBe(true);
    expect(srv.calls()).toBe(1);
  });

  it("a non-loopback host name is dialled over TLS; plain TCP to it only with insecure: true, flagged", async (ctx) => {
    // This machine's own name: not a loopback literal, so treated like a remote host.
    const name = hostname();
    const resolved = await lookup(name).catch(() => undefined);
    if (!resolved?.address.startsWith("127.")) ctx.skip();
    const plain = await serve(ServerCredentials.createInsecure());
    const tlsByDefault = await host({ address: `${name}:${plain.port}` });
    expect(tlsByDefault.status()[0]?.state).toBe("not_ready");
    expect(tlsByDefault.status()[0]?.channel).toBe(
      `TLS to ${name}:${plain.port} (server verified with the system's CAs)`,
    );
    expect(plain.calls()).toBe(0);
    const insecure = await host({ address: `${name}:${plain.port}`, insecure: true });
    expect(insecure.status()[0]).toMatchObject({
      state: "ready",
      channel: `plain TCP to ${name}:${plain.port} (insecure: true), no TLS`,
    });
    expect(insecure.status()[0]?.warnings[0]).toContain("is reached without TLS (insecure: true)");
    expect((await insecure.invoke("remote__t", {}, owner)).ok).toBe(true);
  });
});

describe("channel config validation", () => {
  function problems(value: unknown, baseDir?: string): string[] {
    try {
      validateCapabilityConfigs(value, { file: "/etc/palisade/config.yaml", ...(baseDir ? { baseDir } : {}) });
      return [];
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      return (err as ValidationError).problems.map((p) => `${p.path}: ${p.message}`);
    }
  }

  it("reports each mistake with its path", () => {
    const ca = join(certs, "ca.pem");
    expect(problems([{ id: "a", manifest: "m", address: "unix:/run/a.sock", tls: { ca } }])).toEqual([
      "capabilities[0].tls: is only used with a host:port address (a unix socket or a launched command has no TLS)",
    ]);
    expect(problems([{ id: "a", manifest: "m", command: ["x"], insecure: true }])).toEqual([
      "capabilities[0].insecure: is only used with a host:port address",
    ]);
    expect(problems([{ id: "a", manifest: "m", address: "h:1", tls: { ca }, insecure: true }])).toEqual([
      "capabilities[0].insecure: contradicts tls: remove one of them",
    ]);
    expect(problems([{ id: "a", manifest: "m", address: "h:1", tls: { cert: join(certs, "client.pem") } }])).toEqual([
      "capabilities[0].tls.key: is required with tls.cert and tls.key: a client certificate needs its private key (set both, or neither)",
    ]);
    expect(problems([{ id: "a", manifest: "m", address: "h:1", tls: { ca: "certs/missing.pem" } }], "/srv")).toEqual([
      "capabilities[0].tls.ca: /srv/certs/missing.pem does not exist: give the path of a PEM file",
    ]);
    expect(problems([{ id: "a", manifest: "m", address: "h:1", tls: { ca: certs } }])).toEqual([
      `capabilities[0].tls.ca: ${certs} is not a file: give the path of a PEM file`,
    ]);
    expect(problems([{ id: "a", manifest: "m", address: "h:1", tls: { ca, extra: 1 } }]).join("\n")).toContain(
      "capabilities[0].tls.extra: unknown key; allowed here: ca, cert, key, serverName",
    );
    expect(problems([{ id: "a", manifest: "m", address: "h:1", protocol: "palisade" }])).toEqual([
      "capabilities[0].protocol: is only used with command",
    ]);
    expect(problems([{ id: "a", manifest: "m", command: ["x"], protocol: "grpc" }]).join("\n")).toContain(
      `capabilities[0].protocol: must be palisade or selu, got "grpc"`,
    );
  });

  it("resolves tls paths against the config's directory", () => {
    const [c] = validateCapabilityConfigs(
      [{ id: "a", manifest: "m", address: "h:1", tls: { ca: "ca.pem", cert: "client.pem", key: "client-key.pem" } }],
      { baseDir: certs },
    );
    expect(c).toMatchObject({
      tls: { ca: join(certs, "ca.pem"), cert: join(certs, "client.pem"), key: join(certs, "client-key.pem") },
    });
  });
});
