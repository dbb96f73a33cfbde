// Who listens on a loopback TCP port (Linux /proc): a Selu-convention server is reached on a port
// the Engine picked, and another local process could bind that port first and receive the
// Engine's calls, credentials included. Before talking to the port the Engine checks that the
// listener belongs to the process it launched (or one of its descendants).
import { readFile, readdir, readlink } from "node:fs/promises";

export type ListenerOwner =
  | { kind: "none" } // nothing listens yet
  | { kind: "ours"; pid: number }
  | { kind: "foreign"; pid?: number } // pid unknown when the owner is another user's process
  | { kind: "unknown" }; // no /proc: cannot tell

/** Socket inodes listening on `port` on a loopback or wildcard address (IPv4 and IPv6), from /proc/net/tcp{,6}. */
export async function listeningInodes(port: number): Promise<Set<string> | undefined> {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const loopback = new Set([
    "0100007F",
    "00000000",
    "00000000000000000000000001000000",
    "00000000000000000000000000000000",
    "0000000000000000FFFF00000100007F",
  ]);
  const out = new Set<string>();
  let readable = false;
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
      readable = true;
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      const [addr, p] = (f[1] ?? "").split(":");
      // st 0A = LISTEN; f[9] = inode
      if (
        p === hexPort &&
        f[3] === "0A" &&
        addr !== undefined &&
        (loopback.has(addr) || addr.startsWith("7F") || addr.endsWith("7F")) &&
        f[9]
      )
        out.add(f[9]);
    }
  }
  return readable ? out : undefined;
}

async function ppid(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

async function isUnder(pid: number, root: number): Promise<boolean> {
  for (let p: number | undefined = pid, hops = 0; p !== undefined && p > 1 && hops < 64; hops++) {
    if (p === root) return true;
    p = await ppid(p);
  }
  return false;
}

/** Whether the process listening on 127.0.0.1:`port` is `root` or runs under it. */
export async function listenerOwner(port: number, root: number): Promise<ListenerOwner> {
  const inodes = await listeningInodes(port);
  if (inodes === undefined) return { kind: "unknown" };
  if (inodes.size === 0) return { kind: "none" };
  const wanted = new Set([...inodes].map((i) => `socket:[${i}]`));
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = await readdir(`/proc/${entry}/fd`);
    } catch {
      continue; // another user's process, or gone
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = await readlink(`/proc/${entry}/fd/${fd}`);
      } catch {
        continue;
      }
      if (!wanted.has(target)) continue;
      const pid = Number(entry);
      if (await isUnder(pid, root)) return { kind: "ours", pid };
      return { kind: "foreign", pid };
    }
  }
  // Listening, but no process we can see holds it: another user's.
  return { kind: "foreign" };
}
