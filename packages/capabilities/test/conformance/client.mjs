#!/usr/bin/env node
// The client under test of the MCP conformance suite (`conformance client --command "node
// client.mjs"`): the suite appends its server's URL, names the scenario in
// MCP_CONFORMANCE_SCENARIO and gives scenario data (tool calls, client credentials) in
// MCP_CONFORMANCE_CONTEXT. Everything MCP goes through Palisade's own CapabilityHost, as the
// Engine runs it: connect, list tools, call them, stop. Exit 1 when the server could not be used.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CapabilityHost } from "@palisade/capabilities";

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
    out[name] = type === "number" || type === "integer" ? 1 : type === "boolean" ? true : type === "array" ? [] : type === "object" ? {} : "x";
  }
  return out;
}

/** The user of these scenarios: accepts every form, each field at its default. */
async function acceptDefaults(request) {
  process.stderr.write(`[palisade] elicitation from ${request.capabilityId} (${request.tool}): ${request.message}\n`);
  const content = {};
  for (const [name, field] of Object.entries(request.requestedSchema.properties ?? {})) if (field.default !== undefined) content[name] = field.default;
  return { action: "accept", content };
}

const dataDir = mkdtempSync(join(tmpdir(), "palisade-conformance-"));
const host = new CapabilityHost({
  dataDir,
  capabilities: [{ id: ID, mcp: { url }, maxRestarts: 0 }],
  startupTimeoutMs: 20_000,
  log: (line) => process.stderr.write(`[palisade] ${line}\n`),
});
let code = 0;
try {
  const [status] = await host.start();
  process.stderr.write(`[palisade] ${scenario}: ${status?.state}: ${status?.message}\n`);
  for (const w of status?.warnings ?? []) process.stderr.write(`[palisade] warning: ${w}\n`);
  if (status?.state !== "ready") code = 1;
  else {
    const tools = host.catalog();
    const planned = Array.isArray(context.toolCalls)
      ? context.toolCalls.map((c) => ({ name: c.name, args: c.arguments ?? {} }))
      : scenario === "json-schema-2020-12-preservation"
        ? // The scenario wants the schema Palisade keeps for its focal tool (what the model is
          // given) echoed back through its echo tool.
          [{ name: "json_schema_echo", args: { schema: tools.find((t) => t.name === "json_schema_2020_12_tool")?.inputSchema } }]
        : tools.map((t) => ({ name: t.name, args: sampleArguments(t.inputSchema) }));
    for (const call of planned) {
      const result = await host.invoke(`${ID}__${call.name}`, call.args, { ...owner, timeoutMs: 15_000, elicit: acceptDefaults });
      process.stdout.write(`${call.name}: ${result.ok ? "ok" : `error ${result.error?.code}`}: ${result.content.slice(0, 300)}\n`);
    }
  }
} finally {
  await host.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(code);
