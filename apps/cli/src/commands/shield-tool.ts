// What the Engine passes the Shield about a capability tool, from the tool's manifest: its
// recommended_policy, network policy, schema and semantics. `shield check` judges a call with
// the same context, so it answers what the Engine would (a tool the manifest says to ask for is
// not allowed just because no policy rule names it).
import type { ShieldContext } from "@palisade/shield";
import type { CommandContext } from "../cli/spec.js";
import { openTools } from "./local-tools.js";

export interface ToolFacts {
  context: ShieldContext;
  /** Where the facts came from, or why there are none; printed with the verdict. */
  note: string;
}

/** Starts only the tool's capability (as `capability call` does) and reads its catalog entry. */
export async function toolFacts(ctx: CommandContext, toolName: string): Promise<ToolFacts> {
  const split = toolName.indexOf("__");
  if (split <= 0)
    return {
      context: {},
      note: `${toolName} is not a capability tool (<capability>__<tool>): judged without a manifest`,
    };
  const capability = toolName.slice(0, split);
  const tools = await openTools(ctx, { select: [capability] });
  try {
    const found = tools.host.resolve(toolName);
    if ("error" in found)
      return {
        context: {},
        note: `no manifest describes ${toolName} (${found.error}): judged without one, as an unknown tool`,
      };
    const t = found.tool;
    const context: ShieldContext = {
      manifestPolicy: t.policy,
      toolSchema: t.parameters,
      ...(t.description ? { toolDescription: t.description } : {}),
      ...(t.networkMode
        ? { network: { mode: t.networkMode as "none" | "allowlist" | "any", allow: t.networkAllowlist ?? [] } }
        : {}),
      ...(t.semantics ? { toolSemantics: t.semantics } : {}),
    };
    return {
      context,
      note: `tool facts from capability ${capability}: recommended_policy ${t.policy}${t.networkMode ? `, network ${t.networkMode}` : ""}`,
    };
  } finally {
    await tools.close();
  }
}
