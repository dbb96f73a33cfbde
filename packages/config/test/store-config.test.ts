// Config `store:`: PostgreSQL for the history, never with a password in the file.
import { describe, expect, it } from "vitest";
import { parseConfig } from "../src/parse.js";

describe("config store:", () => {
  it("reads url, pool, lease, engine id and TLS files (relative to the config file)", () => {
    const cfg = parseConfig(
      "store:\n  url: postgres://palisade@db.example:5433/history\n  pool: 4\n  lease_s: 20\n  engine_id: box-1\n  tls: { mode: verify-full, ca_file: ca.pem }\n",
      { file: "/etc/palisade/config.yaml", env: {} },
    );
    expect(cfg.store).toEqual({
      url: "postgres://palisade@db.example:5433/history",
      pool: 4,
      leaseMs: 20_000,
      engineId: "box-1",
      tls: { mode: "verify-full", caFile: "/etc/palisade/ca.pem" },
    });
    expect(parseConfig("model: { name: x }\n", { env: {} }).store).toBeUndefined();
  });

  it("refuses a URL that carries a password, naming where the password goes instead", () => {
    expect(() =>
      parseConfig("store:\n  url: postgres://palisade:hunter2@db.example/history\n", { file: "c.yaml", env: {} }),
    ).toThrow(
      /c\.yaml: store\.url: carries a password: remove it from the URL \(postgres:\/\/palisade@…\) and give it .*PGPASSWORD/,
    );
    try {
      parseConfig("store:\n  url: postgres://palisade:hunter2@db.example/history\n", { env: {} });
    } catch (err) {
      expect((err as Error).message).not.toContain("hunter2");
    }
  });

  it("says what is wrong with other bad values", () => {
    expect(() => parseConfig("store:\n  pool: 2\n", { env: {} })).toThrow(/store\.url: is required/);
    expect(() => parseConfig("store:\n  url: mysql://x@y/z\n", { env: {} })).toThrow(/is not a PostgreSQL URL/);
    expect(() => parseConfig("store:\n  url: postgres://x@y\n", { env: {} })).toThrow(/names no database/);
    expect(() => parseConfig("store:\n  url: postgres://x@y/z\n  tls: { mode: maybe }\n", { env: {} })).toThrow(
      /store\.tls\.mode: must be disable, require or verify-full/,
    );
    expect(() => parseConfig("store:\n  url: postgres://x@y/z\n  pool: 0\n", { env: {} })).toThrow(
      /store\.pool: must be an integer >= 1/,
    );
    expect(() => parseConfig("store:\n  url: postgres://x@y/z\n  password: x\n", { env: {} })).toThrow(
      /store\.password: unknown key/,
    );
  });
});
