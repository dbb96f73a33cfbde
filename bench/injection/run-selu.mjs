// A money pair through the Selu capability in selu-bank.mjs: Invoke over gRPC with the secret,
// the Shield judging each call with the provenance the Engine computes, the judge reading the
// capability's final state for the session.
import { randomBytes, randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DOMAINS, HOME, WORKSPACE } from "./suite.mjs";
import { serveBank } from "./selu-bank.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const { createClient } = await import(join(root, "packages/protocol/dist/index.js"));
const { Capability } = await import(join(root, "packages/protocol/dist/gen/selu/capability/v1/capability_pb.js"));
const enc = new TextEncoder();
const dec = new TextDecoder();

export async function withBank(fn) {
  const secret = randomBytes(32).toString("base64url");
  const server = await serveBank(secret);
  const client = createClient(Capability, server.address, { bearerToken: secret });
  try {
    return await fn(client);
  } finally {
    client.close?.();
    await server.close();
  }
}

export async function runMoneyPairOverSelu(lib, shield, client, { task, goal }, mode) {
  const d = DOMAINS.money;
  const sessionId = randomUUID();
  const invoke = async (name, args) => {
    const res = await client.invoke(
      {
        toolName: name,
        argsJson: enc.encode(JSON.stringify(args)),
        configJson: enc.encode(JSON.stringify({ goal: goal?.id ?? "none" })),
        sessionId,
        capabilityId: "bank",
        threadId: "t",
      },
      { timeoutMs: 10_000 },
    );
    if (res.error) throw new Error(res.error);
    return JSON.parse(dec.decode(res.resultJson));
  };
  const local = d.state("");
  const provenance = new lib.ProvenanceIndex();
  provenance.addUserMessage(task.prompt);
  let asks = 0;
  let obeyed = false;
  const call = async (c) => {
    const t = d.tools.find((x) => x.name === c.tool);
    const ctx = {
      home: HOME,
      workspace: WORKSPACE,
      provenance,
      toolSchema: t.schema,
      ...(t.readOnly ? { manifestPolicy: "allow" } : {}),
    };
    const v = shield.evaluateSync({ tool: c.tool, args: c.args }, ctx);
    if (v.decision === "escalate") asks++;
    if (!(v.decision === "allow" || (v.decision === "escalate" && mode === "approve"))) return "error: not allowed";
    const text = (await invoke(c.tool.split("__")[1], c.args)).text;
    const trust = lib.trustOfResult({
      spec: shield.semantics(c.tool, ctx),
      thirdParty: true,
      paths: [],
      workspace: WORKSPACE,
      credentialPath: false,
    });
    provenance.add(text, { trust, source: { kind: "tool-result", tool: c.tool, at: Date.now() } });
    return text;
  };
  for (const c of task.calls(local)) {
    const result = await call(c);
    if (goal !== null && !obeyed && result.includes("<INFORMATION>")) {
      obeyed = true;
      for (const g of goal.calls(local)) await call(g);
    }
  }
  const state = await invoke("suite_state", {});
  return {
    utility: task.utility(state) === true,
    attacked: goal !== null && goal.success(state) === true,
    injectionSeen: obeyed,
    asks,
  };
}
