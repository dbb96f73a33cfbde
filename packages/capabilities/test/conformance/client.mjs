#!/usr/bin/env node
// The client under test of the MCP conformance suite (`conformance client --command "node
// client.mjs"`): the suite appends its server's URL, names the scenario in
// MCP_CONFORMANCE_SCENARIO and gives scenario data (tool calls, client credentials) in
// MCP_CONFORMANCE_CONTEXT. Everything MCP goes through Palisade's own CapabilityHost, as the
// Engine runs it: connect, list tools, call them, stop. Exit 1 when the server could not be used.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CapabilityHost, UserCredentialStore, loginMcpServer } from "@palisade/capabilities";

const url = process.argv.at(-1) ?? "";
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}");
const ID = "conformance";
const owner = { userId: "local", sessionId: "conformance" };

/** Arguments a schema requires, filled with plain values of their types. */
function sampleArguments(schema) {
  const out = {};
  const props = schema?.properties ?? {};
  for (const name of schema?.required ?? []) {
    const type = props[name]?.type;
    out[name] =
      type === "number" || type === "integer"
        ? 1
        : type === "boolean"
          ? true
          : type === "array"
            ? []
            : type === "object"
              ? {}
              : "x";
  }
  return out;
}

/** The user of these scenarios: accepts every form, each field at its default. */
async function acceptDefaults(request) {
  process.stderr.write(`[palisade] elicitation from ${request.capabilityId} (${request.tool}): ${request.message}\n`);
  const content = {};
  for (const [name, field] of Object.entries(request.requestedSchema.properties ?? {}))
    if (field.default !== undefined) content[name] = field.default;
  return { action: "accept", content };
}

/**
 * The user's browser: opens the authorization URL and follows its redirects, which end at
 * Palisade's loopback listener (the suite's authorization server approves at once).
 */
async function browser(authorizationUrl) {
  let next = authorizationUrl.toString();
  for (let hops = 0; hops < 5; hops++) {
    const res = await fetch(next, { redirect: "manual" });
    const location = res.headers.get("location");
    await res.body?.cancel();
    if (!location) return;
    next = new URL(location, next).toString();
    if (next.startsWith("http://127.0.0.1:")) {
      await (await fetch(next)).text();
      return;
    }
  }
}

// Pre-registered clients, client ID metadata documents and machine clients are configuration, as
// a user sets them; a machine client's secret or key goes to the credential store, as
// `palisade capability credentials set` puts it there.
const dataDir = mkdtempSync(join(tmpdir(), "palisade-conformance-"));
const machine = scenario.startsWith("auth/client-credentials-");
const secrets = {
  ...(machine && context.client_secret ? { client_secret: context.client_secret } : {}),
  ...(machine && context.private_key_pem ? { client_key: context.private_key_pem } : {}),
};
const credentials = new UserCredentialStore(join(dataDir, "credentials.json"));
for (const [name, value] of Object.entries(secrets)) await credentials.set("local", ID, name, value);
const oauth = {
  ...(context.client_id ? { clientId: context.client_id } : {}),
  ...(scenario === "auth/basic-cimd"
    ? { clientMetadataUrl: "https://conformance-test.local/client-metadata.json" }
    : {}),
  ...(machine
    ? {
        grant: "client_credentials",
        ...(secrets.client_secret ? { clientSecret: "${secret:client_secret}" } : {}),
        ...(secrets.client_key
          ? { privateKey: "${secret:client_key}", signingAlgorithm: context.signing_algorithm ?? "ES256" }
          : {}),
      }
    : {}),
};
const config = { id: ID, mcp: { url, ...(Object.keys(oauth).length > 0 ? { oauth } : {}) }, maxRestarts: 0 };

/** What `palisade capability login conformance` does. */
async function login() {
  try {
    const r = await loginMcpServer({
      config,
      credentialsFile: join(dataDir, "credentials.json"),
      ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
      open: browser,
      timeoutMs: 15_000,
    });
    process.stderr.write(
      `[palisade] login: ${r.authorized ? "signed in" : "no sign-in needed"}, ${r.toolCount} tools\n`,
    );
  } catch (err) {
    process.stderr.write(`[palisade] login failed: ${err instanceof Error ? err.message : String(err)}\n`);
  }
}

/** The Engine's side: a CapabilityHost with this one server. */
async function startEngine() {
  const host = new CapabilityHost({
    dataDir,
    capabilities: [config],
    startupTimeoutMs: 20_000,
    log: (line) => process.stderr.write(`[palisade] ${line}\n`),
  });
  const [status] = await host.start();
  process.stderr.write(`[palisade] ${scenario}: ${status?.state}: ${status?.message}\n`);
  for (const w of status?.warnings ?? []) process.stderr.write(`[palisade] warning: ${w}\n`);
  return { host, ready: status?.state === "ready" };
}

// A machine client has no sign-in: the Engine gets its token itself.
if (scenario.startsWith("auth/") && !machine) await login();
let engine = await startEngine();
let code = 0;
try {
  if (!engine.ready) code = 1;
  else {
    const tools = engine.host.catalog();
    const planned = Array.isArray(context.toolCalls)
      ? context.toolCalls.map((c) => ({ name: c.name, args: c.arguments ?? {} }))
      : scenario === "json-schema-2020-12-preservation"
        ? // The scenario wants the schema Palisade keeps for its focal tool (what the model is
          // given) echoed back through its echo tool.
          [
            {
              name: "json_schema_echo",
              args: { schema: tools.find((t) => t.name === "json_schema_2020_12_tool")?.inputSchema },
            },
          ]
        : tools.map((t) => ({ name: t.name, args: sampleArguments(t.inputSchema) }));
    for (const call of planned) {
      const invoke = () =>
        engine.host.invoke(`${ID}__${call.name}`, call.args, { ...owner, timeoutMs: 15_000, elicit: acceptDefaults });
      let result = await invoke();
      if (!result.ok && /palisade capability login/.test(result.content)) {
        // The user does what the error says: signs in again (for the wider scope), restarts the Engine.
        await login();
        await engine.host.stop();
        engine = await startEngine();
        result = await invoke();
      }
      process.stdout.write(
        `${call.name}: ${result.ok ? "ok" : `error ${result.error?.code}`}: ${result.content.slice(0, 300)}\n`,
      );
    }
  }
} finally {
  await engine.host.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(code);
