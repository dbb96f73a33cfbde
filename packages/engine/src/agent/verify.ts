// What the Engine can check from outside about a process that connected with a spawn token,
// instead of trusting what it says about itself: that the pid it claims is the process the Engine
// spawned (or one of its descendants, e.g. under a sandbox launcher with its own pid namespace),
// and, from /proc, its uid, namespaces and no_new_privs/seccomp state.
import { readFileSync, readdirSync, readlinkSync } from "node:fs";

/** Facts read from /proc about the process. */
export interface ProcessFacts {
  /** Its pid as the Engine sees it. */
  hostPid: number;
  uid: number;
  /** Namespaces it does not share with the Engine (e.g. ["net", "pid", "user"]); "?" where unreadable. */
  ownNamespaces: string[];
  noNewPrivs: boolean;
  /** 0 none, 1 strict, 2 filter. */
  seccomp: number;
}

export type SpawnCheck = { ok: true; facts: ProcessFacts | undefined; note?: string } | { ok: false; reason: string };

const NAMESPACES = ["net", "pid", "user", "mnt", "ipc", "uts"] as const;

function status(pid: number): Map<string, string> | undefined {
  try {
    const out = new Map<string, string>();
    for (const line of readFileSync(`/proc/${String(pid)}/status`, "utf8").split("\n")) {
      const at = line.indexOf(":");
      if (at > 0) out.set(line.slice(0, at), line.slice(at + 1).trim());
    }
    return out;
  } catch {
    return undefined;
  }
}

/** `root` and every process below it, by their parent links in /proc. */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = Number(status(Number(entry))?.get("PPid") ?? NaN);
    if (!Number.isInteger(ppid)) continue;
    const list = children.get(ppid) ?? [];
    list.push(Number(entry));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0 && out.length < 64) {
    const pid = queue.shift() ?? root;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

function namespaceOf(pid: number | "self", ns: string): string | undefined {
  try {
    return readlinkSync(`/proc/${String(pid)}/ns/${ns}`);
  } catch {
    return undefined;
  }
}

function factsOf(pid: number, st: Map<string, string>): ProcessFacts {
  const ownNamespaces: string[] = [];
  for (const ns of NAMESPACES) {
    const theirs = namespaceOf(pid, ns);
    if (theirs === undefined) ownNamespaces.push(`${ns}?`);
    else if (theirs !== namespaceOf("self", ns)) ownNamespaces.push(ns);
  }
  return {
    hostPid: pid,
    uid: Number((st.get("Uid") ?? "-1").split(/\s+/)[0]),
    ownNamespaces,
    noNewPrivs: st.get("NoNewPrivs") === "1",
    seccomp: Number(st.get("Seccomp") ?? 0),
  };
}

/**
 * Finds the process that calls itself `reportedPid` among `spawnedPid` and its descendants: its pid
 * in its own pid namespace is the last entry of NSpid in /proc/<pid>/status. Without /proc (not
 * Linux) nothing can be checked from outside and the result says so.
 */
export function checkSpawnedProcess(spawnedPid: number, reportedPid: number): SpawnCheck {
  if (!status(process.pid))
    return {
      ok: true,
      facts: undefined,
      note: "no /proc here: the connecting process could not be checked from outside",
    };
  if (!status(spawnedPid))
    return { ok: false, reason: `the process the Engine spawned (pid ${String(spawnedPid)}) is gone` };
  for (const pid of descendants(spawnedPid)) {
    const st = status(pid);
    const nspid = (st?.get("NSpid") ?? String(pid)).split(/\s+/).map(Number);
    if (st && nspid.at(-1) === reportedPid) return { ok: true, facts: factsOf(pid, st) };
  }
  return {
    ok: false,
    reason: `it says it is pid ${String(reportedPid)}, but no such process runs under the process the Engine spawned (pid ${String(spawnedPid)})`,
  };
}

/**
 * Why a process launched to have namespaces of its own (`expected`, e.g. bubblewrap's) does not,
 * or undefined when it has each. A sandbox launcher that silently did less is caught here.
 */
export function missingNamespaces(facts: ProcessFacts, expected: readonly string[]): string | undefined {
  const shared = expected.filter((ns) => !facts.ownNamespaces.includes(ns));
  return shared.length === 0
    ? undefined
    : `it shares the Engine's ${shared.join(", ")} namespace${shared.length === 1 ? "" : "s"} (${describeFacts(facts)})`;
}

/** One line for the log: what was seen from outside. */
export function describeFacts(facts: ProcessFacts | undefined): string {
  if (!facts) return "not checked from outside (no /proc)";
  const ns =
    facts.ownNamespaces.length > 0 ? `own ${facts.ownNamespaces.join("/")} namespaces` : "the Engine's namespaces";
  return `host pid ${String(facts.hostPid)}, uid ${String(facts.uid)}, ${ns}, no_new_privs ${facts.noNewPrivs ? "on" : "off"}, seccomp ${String(facts.seccomp)}`;
}
