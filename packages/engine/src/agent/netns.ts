// The Agent and sub-agents talk to the world only through the Engine: their unix sockets reach
// the Engine's gRPC server and its model gateway, and nothing else is reachable because they run
// in a network namespace of their own, with no interface but a loopback that is down. An
// unprivileged user namespace makes that possible without root (`unshare -rn`); the command
// keeps its pid (unshare execs it), so the Engine's pid check still applies.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import type { AgentLaunch } from "../ports.js";

export type NetworkNamespace = { ok: true; wrap: (launch: AgentLaunch) => AgentLaunch } | { ok: false; reason: string };

const UNSHARE_ARGS = ["--user", "--map-root-user", "--net", "--"];
let probed: NetworkNamespace | undefined;

/** Whether a network namespace can be made here (probed once), and how to run a command in one. */
export function networkNamespace(): NetworkNamespace {
  if (probed) return probed;
  const unshare = ["/usr/bin/unshare", "/bin/unshare"].find((p) => existsSync(p));
  if (!unshare) return (probed = { ok: false, reason: "unshare (util-linux) is not installed" });
  const res = spawnSync(unshare, [...UNSHARE_ARGS, "/bin/sh", "-c", "exit 0"], { stdio: ["ignore", "ignore", "pipe"], timeout: 5000, encoding: "utf8" });
  if (res.status !== 0) {
    const why = (res.stderr || res.error?.message || `exit ${String(res.status ?? res.signal)}`).trim();
    return (probed = { ok: false, reason: `unprivileged user and network namespaces are not available here (${why})` });
  }
  return (probed = { ok: true, wrap: (l) => ({ ...l, command: unshare, args: [...UNSHARE_ARGS, l.command, ...l.args] }) });
}
