import { existsSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { parse } from "pg-connection-string";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresUnavailable, startPostgres } from "./postgres-cluster.js";
import type { PgCluster } from "./postgres-cluster.js";

describe.skipIf(postgresUnavailable() !== undefined)("private PostgreSQL cluster for tests", () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(async () => {
    await cluster.stop();
  });

  it("serves its socket directory only, as an unprivileged user, and asks for a password", async () => {
    expect(existsSync(join(cluster.socketDir, ".s.PGSQL.5432"))).toBe(true);
    const r = await cluster.sql(
      "postgres",
      "SELECT current_setting('listen_addresses') AS listen, current_setting('is_superuser') AS su",
    );
    expect(r.rows[0]).toMatchObject({ listen: "" });
    const owner = await cluster.sql("postgres", "SELECT pg_catalog.current_setting('data_directory') AS data");
    expect(String(owner.rows[0]?.data)).toBe(join(cluster.dir, "data"));
    const noPassword = new pg.Client({ ...parse(cluster.url("postgres")), password: "wrong" } as pg.ClientConfig);
    await expect(noPassword.connect()).rejects.toThrow(/password authentication failed/);
  });

  it("removes its directory when stopped", async () => {
    const other = await startPostgres();
    const db = await other.createDatabase();
    await other.sql(db, "CREATE TABLE t (x int)");
    await other.stop();
    expect(existsSync(other.dir)).toBe(false);
  });
});
