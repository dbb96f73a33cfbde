// `palisade capability login <id>` against a local OAuth authorization server: the sign-in URL is
// printed (headless use), the browser's redirect reaches the loopback listener, the tokens are
// stored for the Engine and never printed.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { UserCredentialStore } from "@palisade/capabilities";
import { OAuthRig } from "../../../packages/capabilities/test/oauth-server.js";
import { runCli } from "../src/cli/run-cli.js";
import { captureIo } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "palisade-login-cli-"));
const config = join(dir, "config.yaml");
const dataDir = join(dir, "data");
let rig: OAuthRig;

beforeAll(async () => {
  rig = new OAuthRig();
  writeFileSync(config, stringify({ capabilities: [{ id: "remote", mcp: { url: await rig.start() } }] }));
});
afterAll(() => rig.stop());

describe("palisade capability login", () => {
  it("prints the sign-in URL, takes the redirect on 127.0.0.1 and stores the tokens without printing them", async () => {
    const io = captureIo({}, dir);
    const done = runCli(["capability", "login", "remote", "--config", config, "--data-dir", dataDir], io);
    let url: string | undefined;
    for (let i = 0; i < 800 && !url; i++) {
      url = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(io.err())?.[1];
      if (!url) await new Promise((r) => setTimeout(r, 25));
    }
    expect(url, io.err()).toBeDefined();
    // The user's browser: the authorization server approves and redirects to Palisade's listener.
    const res = await fetch(url as string, { redirect: "manual" });
    const back = res.headers.get("location") ?? "";
    expect(back).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    expect(await (await fetch(back)).text()).toContain("Signed in");
    expect(await done).toBe(0);
    expect(io.out()).toContain("Signed in to remote: 2 tools");
    const stored = readFileSync(join(dataDir, "credentials.json"), "utf8");
    const tokens = (
      JSON.parse(
        (JSON.parse(stored) as { users: { local: { remote: { oauth: string } } } }).users.local.remote.oauth,
      ) as { tokens: { access_token: string; refresh_token: string } }
    ).tokens;
    for (const t of [tokens.access_token, tokens.refresh_token]) expect(io.out() + io.err()).not.toContain(t);
    expect(rig.grants).toEqual(["authorization_code"]);
  }, 30_000);

  it("a client_credentials server has no sign-in: it says so, opens nothing and stores nothing", async () => {
    const machine = join(dir, "machine.yaml");
    const oauth = { grant: "client_credentials", clientId: "bot", clientSecret: "${secret:bot_secret}" };
    writeFileSync(machine, stringify({ capabilities: [{ id: "bot", mcp: { url: `${rig.url}/mcp`, oauth } }] }));
    const io = captureIo({}, dir);
    const before = rig.grants.length;
    expect(await runCli(["capability", "login", "bot", "--config", machine, "--data-dir", dataDir], io)).toBe(0);
    expect(io.out()).toContain("bot uses grant: client_credentials");
    expect(io.out()).toContain("capability credentials set bot <name>");
    expect(io.err()).not.toContain("Sign in to");
    expect(rig.grants.length).toBe(before);
  });

  it("capability list starts a client_credentials server with the stored secret and says when no issuer binds it", async () => {
    rig.machine = { clientId: "bot", clientSecret: "bot-s3cret" };
    const machine = join(dir, "machine-list.yaml");
    const oauth = { grant: "client_credentials", clientId: "bot", clientSecret: "${secret:bot_secret}" };
    writeFileSync(machine, stringify({ capabilities: [{ id: "bot", mcp: { url: `${rig.url}/mcp`, oauth } }] }));
    const store = new UserCredentialStore(join(dataDir, "credentials.json"));
    await store.set("local", "bot", "bot_secret", "bot-s3cret");
    const io = captureIo({}, dir);
    const args = ["capability", "list", "bot", "--config", machine, "--data-dir", dataDir];
    expect(await runCli(args, io), io.err()).toBe(0);
    expect(io.out()).toMatch(/bot {2}launch: \S+ {2}health: ready/);
    expect(io.out()).toContain("warning: oauth.issuer is not set");
    expect(io.out()).toContain("bot__whoami");
    expect(io.out() + io.err()).not.toContain("bot-s3cret");
    expect(rig.clientAuth.at(-1)).toBe("basic bot");
  }, 30_000);

  it("names the fix when the id is not an HTTP MCP server of the config", async () => {
    const io = captureIo({}, dir);
    expect(await runCli(["capability", "login", "nosuch", "--config", config, "--data-dir", dataDir], io)).toBe(1);
    expect(io.err()).toContain("has no MCP server over HTTP with id nosuch");
  });
});
