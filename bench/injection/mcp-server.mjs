// One domain of the suite served by a real MCP server over stdio (the SDK's Server):
//   node bench/injection/mcp-server.mjs <mail|money|messaging> <goal id | none>
// The tools are listed with their JSON Schemas and readOnlyHint, as a third-party server would.
// `suite_state` returns the environment's state: only the judge calls it, never the model. With
// SUITE_STATE_FILE set, the state is also written there after every call (for a judge that cannot
// call the server itself: an Engine test, where the Engine owns the server).
import { writeFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { DOMAINS, injectionText } from "./suite.mjs";

const [domainName, goalId] = process.argv.slice(2);
const domain = DOMAINS[domainName];
if (domain === undefined) {
  process.stderr.write(`unknown domain ${domainName}: one of ${Object.keys(DOMAINS).join(", ")}\n`);
  process.exit(2);
}
const goal = domain.goals.find((g) => g.id === goalId) ?? null;
const state = domain.state(goal === null ? "" : injectionText(goal));
// the server's own tool names: the client adds the capability prefix
const tools = domain.tools
  .filter((t) => !t.builtin)
  .map((t) => ({ ...t, bare: t.name.slice(t.name.indexOf("__") + 2) }));

const server = new Server({ name: `suite-${domainName}`, version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: tools.map((t) => ({
    name: t.bare,
    description: `${t.bare} (${domainName})`,
    inputSchema: t.schema,
    annotations: { readOnlyHint: t.readOnly === true },
  })),
}));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  if (req.params.name === "suite_state") return { content: [{ type: "text", text: JSON.stringify(state) }] };
  const t = tools.find((x) => x.bare === req.params.name);
  if (t === undefined) return { isError: true, content: [{ type: "text", text: `unknown tool ${req.params.name}` }] };
  const text = String(t.run(state, req.params.arguments ?? {}));
  if (process.env.SUITE_STATE_FILE) writeFileSync(process.env.SUITE_STATE_FILE, JSON.stringify(state));
  return { content: [{ type: "text", text }] };
});
await server.connect(new StdioServerTransport());
