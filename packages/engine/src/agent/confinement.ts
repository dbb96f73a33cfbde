// How the Agent is confined, as the Engine knows it: from the flags it launched the Agent with
// and what /proc shows of the process, beside what the Agent reported of its own probes. Pure.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { AgentConfinementSchema, SandboxReport } from "@palisade/protocol/pipeline";
import type { AgentLaunch } from "../ports.js";
import { describeFacts } from "./verify.js";
import type { ProcessFacts } from "./verify.js";

export type Confinement = MessageInitShape<typeof AgentConfinementSchema>;

function flagValues(args: readonly string[], flag: string): string[] {
  return args.filter((a) => a.startsWith(`${flag}=`)).map((a) => a.slice(flag.length + 1));
}

/** Network: "none" only when the Agent found no interface and /proc shows a namespace of its own. */
export function describeNetwork(report: SandboxReport | undefined, facts: ProcessFacts | undefined): string {
  const ownNet = facts?.ownNamespaces.includes("net") ?? false;
  if (report?.networkIsolated && ownNet) return "none (a network namespace of its own, seen in /proc; no interface)";
  if (report?.networkIsolated && !facts)
    return "no interface by the Agent's own report (not checked from outside: no /proc)";
  if (ownNet) return "a network namespace of its own, but the Agent reports an interface in it";
  if (facts) return "the Engine's network (no namespace of its own)";
  return "has a network interface (by its own report)";
}

/** `wall`: the Engine's line for how the Agent was launched (bubblewrap, or why not). */
export function confinementOf(
  report: SandboxReport | undefined,
  facts: ProcessFacts | undefined,
  launch: AgentLaunch | undefined,
  wall?: string,
): Confinement {
  const args = launch?.args ?? [];
  const launchedWithPermissions = args.includes("--permission");
  return {
    network: describeNetwork(report, facts),
    permissionModel: Boolean(report?.permissionModel) && (launch === undefined || launchedWithPermissions),
    fsRead: flagValues(args, "--allow-fs-read"),
    fsWrite: flagValues(args, "--allow-fs-write"),
    process: [wall?.replace(/^agent sandbox: /, ""), facts ? describeFacts(facts) : ""]
      .filter(Boolean)
      .join("; seen from outside: "),
  };
}
