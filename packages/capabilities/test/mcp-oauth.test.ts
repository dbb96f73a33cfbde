import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loginMcpServer } from "@palisade/capabilities";
import type { McpCapabilityConfig } from "@palisade/capabilities";
import { owner, startHost, tempDir } from "./helpers.js";
import { OAuthRig } from "./oauth-server.js";

/** The user's browser: follows the authorization server's redirect to Palisade's loopback listener. */
async function browser(url: URL): Promise<void> {
  const res = await fetch(url, { redirect: "manual" });
  const location = res.headers.get("location");
  await res.body?.cancel();
  if (location) await (await fetch(location)).text();
}

describe("OAuth for an HTTP MCP server, against a local authorization server", () => {
  let rig: OAuthRig;
  let config: McpCapabilityConfig;
  let dataDir: string;
  const credentialsFile = (): string => join(dataDir, "credentials.json");

  beforeEach(async () => {
    rig = new OAuthRig();
    config = { id: "remote", mcp: { url: await rig.start() } };
    dataDir = tempDir("palisade-oauth-");
  });
  afterEach(() => rig.stop());

  it("without a login the server is failed with how to log in, and the Engine registers nothing", async () => {
    const { host } = await startHost([config], { dataDir });
    try {
      expect(host.status()[0]).toMatchObject({ state: "failed" });
      expect(host.status()[0]?.message).toMatch(/needs you to log in .*palisade capability login remote/);
      expect(rig.grants).toEqual([]);
      expect(rig.registrations).toBe(0);
    } finally {
      await host.stop();
    }
  });

  it("login: discovery, registration, PKCE S256, the code exchanged; the token kept in the credential store (0600) and used by the Engine", async () => {
    const opened: URL[] = [];
    const r = await loginMcpServer({
      config,
      credentialsFile: credentialsFile(),
      open: async (u) => (opened.push(u), browser(u)),
      timeoutMs: 10_000,
    });
    expect(r).toEqual({ authorized: true, toolCount: 1 });
    expect(opened[0]?.origin).toBe(rig.url);
    expect(opened[0]?.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(rig.challengeMethods).toEqual(["S256"]);
    expect(rig.grants).toEqual(["authorization_code"]);
    expect(statSync(credentialsFile()).mode & 0o777).toBe(0o600);
    const stored = readFileSync(credentialsFile(), "utf8");
    const token = (
      JSON.parse(
        (JSON.parse(stored) as { users: { local: { remote: { oauth: string } } } }).users.local.remote.oauth,
      ) as { tokens: { access_token: string } }
    ).tokens.access_token;
    const { host } = await startHost([config], { dataDir });
    try {
      expect(host.status()[0]).toMatchObject({ state: "ready" });
      const call = await host.invoke("remote__whoami", {}, owner);
      expect(call).toMatchObject({ ok: true, content: "alice" });
      expect(rig.bearers.at(-1)).toBe(`Bearer ${token}`);
    } finally {
      await host.stop();
    }
  });

  it("an expired access token is refreshed with the stored refresh token, without the user", async () => {
    rig.accessTtlMs = 300;
    await loginMcpServer({ config, credentialsFile: credentialsFile(), open: browser, timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 400));
    const { host } = await startHost([config], { dataDir });
    try {
      expect(host.status()[0]).toMatchObject({ state: "ready" });
      expect((await host.invoke("remote__whoami", {}, owner)).content).toBe("alice");
      expect(rig.grants).toContain("refresh_token");
    } finally {
      await host.stop();
    }
  });

  it("a revoked grant ends in a message to log in again, not a loop", async () => {
    await loginMcpServer({ config, credentialsFile: credentialsFile(), open: browser, timeoutMs: 10_000 });
    rig.revokeAll();
    const { host } = await startHost([config], { dataDir });
    try {
      expect(host.status()[0]).toMatchObject({ state: "failed" });
      expect(host.status()[0]?.message).toMatch(/needs you to log in .*palisade capability login remote/);
      expect(rig.grants.filter((g) => g === "refresh_token").length).toBeLessThanOrEqual(2);
    } finally {
      await host.stop();
    }
  });
});
