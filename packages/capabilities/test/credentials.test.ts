import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CapabilityError,
  SecretRedactor,
  UserCredentialStore,
  createCredentialSource,
  resolveCredentials,
} from "@palisade/capabilities";
import type { CredentialSpec } from "@palisade/capabilities";

const spec = (name: string, scope: "system" | "user", required = true, description = ""): CredentialSpec => ({
  name,
  scope,
  credentialType: "secret",
  required,
  description,
});

describe("credentials", () => {
  it("user store is a 0600 file; values per user and capability", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "palisade-cred-")), "credentials.json");
    const users = new UserCredentialStore(file);
    await users.set("alice", "gh", "GITHUB_TOKEN", "ghp_alice");
    await users.set("bob", "gh", "GITHUB_TOKEN", "ghp_bob");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await users.get("alice", "gh", "GITHUB_TOKEN")).toBe("ghp_alice");
    expect(await users.get("alice", "other", "GITHUB_TOKEN")).toBeUndefined();
    expect(await users.names("alice")).toEqual({ gh: ["GITHUB_TOKEN"] });
    expect(await users.delete("alice", "gh", "GITHUB_TOKEN")).toBe(true);
    expect(await users.get("alice", "gh", "GITHUB_TOKEN")).toBeUndefined();
  });

  it("sends only declared credentials: system from config then env, user from the store", async () => {
    const users = new UserCredentialStore(join(mkdtempSync(join(tmpdir(), "palisade-cred-")), "c.json"));
    await users.set("alice", "cap", "USER_KEY", "u-secret");
    const source = createCredentialSource({
      system: { cap: { SYS_KEY: "from-config", UNDECLARED: "nope" } },
      env: { ENV_KEY: "from-env", SYS_KEY: "env-loses", HOME: "/root" },
      users,
    });
    const manifest = {
      id: "cap",
      credentials: [
        spec("SYS_KEY", "system"),
        spec("ENV_KEY", "system"),
        spec("USER_KEY", "user"),
        spec("OPTIONAL", "system", false),
      ],
    };
    expect(await resolveCredentials(manifest, source, "alice")).toEqual({
      SYS_KEY: "from-config",
      ENV_KEY: "from-env",
      USER_KEY: "u-secret",
    });
  });

  it("a missing required credential says exactly how to set it", async () => {
    const source = createCredentialSource({});
    const sys = resolveCredentials(
      { id: "web", credentials: [spec("API_KEY", "system", true, "Search key")] },
      source,
      "alice",
    );
    await expect(sys).rejects.toThrow(CapabilityError);
    await expect(sys).rejects.toThrow(
      /system credential API_KEY \(Search key\).*credentials: \{ API_KEY: "\.\.\." \}.*id: web.*environment variable API_KEY/,
    );
    await expect(resolveCredentials({ id: "gh", credentials: [spec("TOKEN", "user")] }, source, "bob")).rejects.toThrow(
      'user "bob" has not set. Set it with: palisade capability credentials set gh TOKEN --user bob',
    );
    // With a store, the hint names its data directory, quoted for the shell where needed.
    const stored = createCredentialSource({ users: new UserCredentialStore("/srv/my data/credentials.json") });
    await expect(resolveCredentials({ id: "gh", credentials: [spec("TOKEN", "user")] }, stored, "bob")).rejects.toThrow(
      "palisade capability credentials set gh TOKEN --user bob --data-dir '/srv/my data' (the value is read from stdin",
    );
  });

  it("redacts known values", () => {
    const r = new SecretRedactor();
    r.add("sk-123456");
    r.add("ab");
    expect(r.redact("key sk-123456 and sk-123456; ab")).toBe("key [redacted] and [redacted]; ab");
  });
});
