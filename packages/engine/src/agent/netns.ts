// The Agent and sub-agents talk to the world only through the Engine: their unix sockets reach
// the Engine's gRPC server and its model gateway, and nothing else is reachable because they run
// in a network namespace of their own, with no interface but a loopback that is down. An
// unprivileged user namespace makes that possible without root (`unshare -rn`); the command
// keeps its pid (unshare execs it), so the Engine's pid check still applies.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import type { AgentLaunch } from "../ports.js";

export type NetworkNamespace = { ok: true; wrap: (launch: AgentLaunch) => AgentLaunch } | { ok: false; reason: string };

const UNSHARE_ARGS = ["--user", "--map-root-user", "--net", "--"];
let probed: NetworkNamespace | undefined;

let probing: Promise<NetworkNamespace> | undefined;

function findUnshare(): string | undefined {
  return ["/usr/bin/unshare", "/bin/unshare"].find((p) => existsSync(p));
}

function outcome(unshare: string, status: number | null, why: string): NetworkNamespace {
  if (status !== 0)
    return { ok: false, reason: `unprivileged user and network namespaces are not available here (${why.trim()})` };
  return { ok: true, wrap: (l) => ({ ...l, command: unshare, args: [...UNSHARE_ARGS, l.command, ...l.args] }) };
}

/**
 * Probes in the background (the Engine calls it as it starts, so the first Agent launch finds the
 * answer ready instead of blocking the event loop on a synchronous spawn).
 */
export function probeNetworkNamespace(): Promise<NetworkNamespace> {
  if (probed) return Promise.resolve(probed);
  probing ??= new Promise<NetworkNamespace>((resolve) => {
    const unshare = findUnshare();
    if (!unshare) return resolve((probed = { ok: false, reason: "unshare (util-linux) is not installed" }));
    let stderr = "";
    const child = spawn(unshare, [...UNSHARE_ARGS, "/bin/sh", "-c", "exit 0"], {
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 5000,
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.once("error", (err) => resolve((probed ??= outcome(unshare, -1, err.message))));
    child.once("close", (code, signal) =>
      resolve((probed ??= outcome(unshare, code, stderr || `exit ${String(code ?? signal)}`))),
    );
  });
  return probing;
}

/** Whether a network namespace can be made here (probed once), and how to run a command in one. */
export function networkNamespace(): NetworkNamespace {
  if (probed) return probed;
  const unshare = findUnshare();
  if (!unshare) return (probed = { ok: false, reason: "unshare (util-linux) is not installed" });
  const res = spawnSync(unshare, [...UNSHARE_ARGS, "/bin/sh", "-c", "exit 0"], {
    stdio: ["ignore", "ignore", "pipe"],
    timeout: 5000,
    encoding: "utf8",
  });
  return (probed = outcome(
    unshare,
    res.status,
    res.stderr || res.error?.message || `exit ${String(res.status ?? res.signal)}`,
  ));
}
