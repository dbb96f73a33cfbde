// store.tls against a real TLS server (a private cluster with ssl=on on 127.0.0.1): verify-full
// connects when the CA signed the server's certificate for that name, and refuses another CA.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgStore } from "@palisade/store";
import { postgresUnavailable, startPostgres } from "./postgres-cluster.js";
import type { PgCluster } from "./postgres-cluster.js";

const openssl = (args: string[]): void => {
  execFileSync("openssl", args, { stdio: "ignore" });
};

function makeCa(dir: string, name: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  openssl([
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "2",
    "-subj",
    `/CN=${name}`,
    "-keyout",
    key,
    "-out",
    cert,
  ]);
  return { cert, key };
}

describe.skipIf(postgresUnavailable() !== undefined)("store.tls against a TLS PostgreSQL", () => {
  let cluster: PgCluster;
  let dir: string;
  let ca: { cert: string; key: string };
  let otherCa: { cert: string; key: string };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "palisade-pg-tls-"));
    ca = makeCa(dir, "test-ca");
    otherCa = makeCa(dir, "other-ca");
    const key = join(dir, "server.key");
    const csr = join(dir, "server.csr");
    const cert = join(dir, "server.crt");
    const ext = join(dir, "san.ext");
    writeFileSync(ext, "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
    openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", key, "-out", csr]);
    openssl([
      "x509",
      "-req",
      "-in",
      csr,
      "-CA",
      ca.cert,
      "-CAkey",
      ca.key,
      "-CAcreateserial",
      "-days",
      "2",
      "-extfile",
      ext,
      "-out",
      cert,
    ]);
    cluster = await startPostgres({ tls: { certFile: cert, keyFile: key } });
  });
  afterAll(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const url = (): string => `postgres://${cluster.admin.user}@localhost:${String(cluster.port)}/postgres`;

  it("verify-full with the CA that signed the server's certificate: an encrypted connection", async () => {
    const store = await PgStore.open({
      url: url(),
      password: cluster.admin.password,
      tls: { mode: "verify-full", caFile: ca.cert },
    });
    try {
      await store.createSession({ id: "s1" });
      expect((await store.getSession("s1"))?.id).toBe("s1");
    } finally {
      await store.close();
    }
  });

  it("refuses a server whose certificate another CA signed, naming the reason", async () => {
    await expect(
      PgStore.open({
        url: url(),
        password: cluster.admin.password,
        tls: { mode: "verify-full", caFile: otherCa.cert },
      }),
    ).rejects.toThrow(
      expect.objectContaining({
        code: "UNAVAILABLE",
        message: expect.stringMatching(
          /cannot open the PostgreSQL store at PostgreSQL .*localhost:\d+\/postgres: .*(self-signed|unable to get local issuer|certificate)/i,
        ) as string,
      }),
    );
  });

  it("the store's connection is encrypted (pg_stat_ssl of its backend)", async () => {
    const store = await PgStore.open({
      url: url(),
      password: cluster.admin.password,
      tls: { mode: "verify-full", caFile: ca.cert },
    });
    try {
      await store.createSession({ id: "s2" });
      const ssl = await cluster.sql(
        "postgres",
        "SELECT COUNT(*)::int AS n FROM pg_stat_ssl s JOIN pg_stat_activity a ON a.pid = s.pid WHERE s.ssl AND a.application_name = 'palisade'",
      );
      expect(ssl.rows[0]?.n).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it("a file named in store.tls that cannot be read is a clear error", async () => {
    await expect(
      PgStore.open({ url: url(), password: cluster.admin.password, tls: { caFile: join(dir, "missing.pem") } }),
    ).rejects.toThrow(/store\.tls\.caFile .*missing\.pem: ENOENT/);
  });
});
