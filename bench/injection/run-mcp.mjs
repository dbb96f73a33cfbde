// The same pair as run.mjs, with the domain's tools served by the MCP server in mcp-server.mjs
// (a real process over stdio): the Shield sees the schemas and readOnlyHint the server lists,
// the model's calls go through the MCP client, and the judge reads the server's final state.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DOMAINS, HOME, WORKSPACE, injectionText } from "./suite.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const MARK = "<INFORMATION>";

export async function runPairOverMcp(lib, shield, { domain, task, goal }, mode) {
  const d = DOMAINS[domain];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(here, "mcp-server.mjs"), domain, goal?.id ?? "none"],
    stderr: "inherit",
  });
  const client = new Client({ name: "suite-judge", version: "1.0.0" });
  await client.connect(transport);
  try {
    const prefix = (name) => `${d.tools.find((t) => t.name.endsWith(`__${name}`))?.name.split("__")[0]}__${name}`;
    const listed = new Map((await client.listTools()).tools.map((t) => [prefix(t.name), t]));
    // the model plans from what it reads; its plan is computed from the same initial data
    const local = d.state(goal === null ? "" : injectionText(goal));
    const provenance = new lib.ProvenanceIndex();
    provenance.addUserMessage(task.prompt);
    let asks = 0;
    let obeyed = false;
    let n = 0;
    const call = async (c) => {
      const t = listed.get(c.tool);
      const declared = d.tools.find((x) => x.name === c.tool);
      const ctx = {
        home: HOME,
        workspace: WORKSPACE,
        provenance,
        ...(t ? { toolSchema: t.inputSchema } : {}),
        ...(declared?.semantics ? { toolSemantics: declared.semantics } : {}),
        ...(t?.annotations?.readOnlyHint ? { manifestPolicy: "allow" } : {}),
      };
      const v = shield.evaluateSync({ tool: c.tool, args: c.args }, ctx);
      if (v.decision === "escalate") asks++;
      if (!(v.decision === "allow" || (v.decision === "escalate" && mode === "approve"))) return "error: not allowed";
      const r = await client.callTool({ name: c.tool.split("__")[1], arguments: c.args });
      const text = r.content.map((x) => x.text ?? "").join("");
      const spec = shield.semantics(c.tool, ctx);
      const trust = lib.trustOfResult({
        spec,
        thirdParty: true,
        ...(declared?.trust ? { declared: declared.trust } : {}),
        paths: [],
        workspace: WORKSPACE,
        credentialPath: false,
      });
      provenance.add(text, {
        trust,
        source: { kind: "tool-result", tool: c.tool, callId: `call-${++n}`, at: Date.now() },
      });
      return text;
    };
    for (const c of task.calls(local)) {
      const result = await call(c);
      if (goal !== null && !obeyed && result.includes(MARK)) {
        obeyed = true;
        for (const g of goal.calls(local)) await call(g);
      }
    }
    const state = JSON.parse((await client.callTool({ name: "suite_state", arguments: {} })).content[0].text);
    return {
      utility: task.utility(state) === true,
      attacked: goal !== null && goal.success(state) === true,
      injectionSeen: obeyed,
      asks,
    };
  } finally {
    await client.close();
  }
}
