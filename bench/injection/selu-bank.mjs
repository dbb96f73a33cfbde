// The money domain as a Selu capability written with Palisade's capability SDK, served over real
// gRPC. Each (session_id) is one environment; config_json carries the goal whose text the
// transactions hold (`{goal}`), as a capability's runtime config would. `suite_state` is for the
// judge only.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DOMAINS, injectionText } from "./suite.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const { defineCapability, serveCapability } = await import(join(root, "packages/capability-sdk/dist/index.js"));
const money = DOMAINS.money;

export function bankCapability() {
  const states = new Map();
  const stateOf = (ctx) => {
    let s = states.get(ctx.sessionId);
    if (s === undefined) {
      const goal = money.goals.find((g) => g.id === ctx.config.goal) ?? null;
      s = money.state(goal === null ? "" : injectionText(goal));
      states.set(ctx.sessionId, s);
    }
    return s;
  };
  const tools = money.tools.map((t) => ({
    name: t.name.split("__")[1],
    description: `${t.name} (bank)`,
    inputSchema: t.schema,
    handler: async (args, ctx) => ({ text: String(t.run(stateOf(ctx), args)) }),
  }));
  tools.push({
    name: "suite_state",
    description: "judge only",
    inputSchema: { type: "object", properties: {} },
    handler: async (_a, ctx) => stateOf(ctx),
  });
  return defineCapability({ id: "bank", tools });
}

export async function serveBank(secret) {
  return serveCapability(bankCapability(), { port: 0, secret, log: () => {} });
}
