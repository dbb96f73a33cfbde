import { generateKeyPairSync } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UserCredentialStore, loginMcpServer } from "@palisade/capabilities";
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
    expect(r).toEqual({ authorized: true, toolCount: 2 });
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

describe("OAuth client_credentials: the Engine signs in as a registered client, with a stored secret", () => {
  let rig: OAuthRig;
  let url: string;
  let dataDir: string;
  const SECRET = "s3cret-of-the-build-bot";
  const store = (): UserCredentialStore => new UserCredentialStore(join(dataDir, "credentials.json"));
  const machine = (oauth: Record<string, string>): McpCapabilityConfig => ({
    id: "remote",
    mcp: { url, oauth: { grant: "client_credentials", clientId: "build-bot", issuer: rig.url, ...oauth } },
  });

  beforeEach(async () => {
    rig = new OAuthRig();
    url = await rig.start();
    dataDir = tempDir("palisade-oauth-cc-");
  });
  afterEach(() => rig.stop());

  it("client_secret_basic: no login; the token is asked for with the stored secret and used, and neither reaches a result", async () => {
    rig.machine = { clientId: "build-bot", clientSecret: SECRET };
    await store().set("local", "remote", "bot_secret", SECRET);
    const { host } = await startHost([machine({ clientSecret: "${secret:bot_secret}" })], { dataDir });
    try {
      expect(host.status()[0], host.status()[0]?.message).toMatchObject({ state: "ready" });
      expect(host.status()[0]?.warnings).toEqual([]);
      expect(rig.grants).toEqual(["client_credentials"]);
      expect(rig.clientAuth).toEqual(["basic build-bot"]);
      expect(rig.registrations).toBe(0);
      expect(rig.challengeMethods).toEqual([]);
      expect(await host.invoke("remote__whoami", {}, owner)).toMatchObject({ ok: true, content: "alice" });
      const token = rig.bearers.at(-1)?.replace(/^Bearer /, "") ?? "";
      expect(token).toMatch(/^at-/);
      // A server that hands the header back: what the model would read has neither token nor secret.
      const leak = await host.invoke("remote__echo-authorization", {}, owner);
      expect(leak.ok).toBe(true);
      expect(leak.content).toContain("you sent: Bearer ");
      expect(leak.content).not.toContain(token);
      expect(JSON.stringify(host.status())).not.toContain(token);
      // Nothing of it is written down: the credential store holds the secret the user set, no token.
      expect(readFileSync(join(dataDir, "credentials.json"), "utf8")).not.toContain(token);
    } finally {
      await host.stop();
    }
  });

  it("private_key_jwt: the assertion is signed with the stored key (iss = sub = client, aud = issuer)", async () => {
    const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    rig.machine = { clientId: "build-bot", publicKey };
    await store().set("local", "remote", "bot_key", privateKey.export({ type: "pkcs8", format: "pem" }).toString());
    const { host } = await startHost([machine({ privateKey: "${secret:bot_key}", signingAlgorithm: "ES256" })], {
      dataDir,
    });
    try {
      expect(host.status()[0], host.status()[0]?.message).toMatchObject({ state: "ready" });
      expect(rig.clientAuth).toEqual(["jwt build-bot"]);
      expect(await host.invoke("remote__whoami", {}, owner)).toMatchObject({ ok: true, content: "alice" });
    } finally {
      await host.stop();
    }
  });

  it("a refused secret fails the server with what to fix, not with a login the grant does not have", async () => {
    rig.machine = { clientId: "build-bot", clientSecret: SECRET };
    await store().set("local", "remote", "bot_secret", "not-the-secret");
    const { host } = await startHost([machine({ clientSecret: "${secret:bot_secret}" })], { dataDir });
    try {
      const status = host.status()[0];
      expect(status).toMatchObject({ state: "failed" });
      expect(status?.message).toMatch(/refused the client credentials of build-bot/);
      expect(status?.message).toContain("palisade capability credentials set remote bot_secret");
      expect(status?.message).not.toMatch(/capability login/);
      expect(status?.message).not.toContain("not-the-secret");
      // Refused, and not tried again and again (the SDK retries once with fresh client information).
      expect(rig.clientAuth.length).toBeGreaterThan(0);
      expect(rig.clientAuth.length).toBeLessThanOrEqual(2);
      for (const a of rig.clientAuth) expect(a).toBe("refused: wrong client secret");
    } finally {
      await host.stop();
    }
  });

  it("the secret goes to no authorization server but the configured issuer", async () => {
    rig.machine = { clientId: "build-bot", clientSecret: SECRET };
    await store().set("local", "remote", "bot_secret", SECRET);
    const config = machine({ clientSecret: "${secret:bot_secret}", issuer: "https://auth.example.com" });
    const { host } = await startHost([config], { dataDir });
    try {
      expect(host.status()[0]).toMatchObject({ state: "failed" });
      expect(rig.grants).toEqual([]);
      expect(rig.clientAuth).toEqual([]);
    } finally {
      await host.stop();
    }
  });

  it("without oauth.issuer the server works and says where the secret may go", async () => {
    rig.machine = { clientId: "build-bot", clientSecret: SECRET };
    await store().set("local", "remote", "bot_secret", SECRET);
    const { issuer: _issuer, ...oauth } = (machine({ clientSecret: "${secret:bot_secret}" }).mcp as { oauth: object })
      .oauth as Record<string, string>;
    const { host } = await startHost([{ id: "remote", mcp: { url, oauth } }], { dataDir });
    try {
      expect(host.status()[0]).toMatchObject({ state: "ready" });
      expect(host.status()[0]?.warnings).toEqual([expect.stringMatching(/^oauth\.issuer is not set/)]);
    } finally {
      await host.stop();
    }
  });

  it("capability login refuses it: there is no sign-in", async () => {
    const config = machine({ clientSecret: "${secret:bot_secret}" });
    await expect(
      loginMcpServer({ config, credentialsFile: join(dataDir, "credentials.json"), open: browser, timeoutMs: 5_000 }),
    ).rejects.toThrow(/grant: client_credentials: the Engine gets its token itself/);
  });
});
