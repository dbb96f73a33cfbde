// CPU accounting from /proc for benchmarks that run real processes: what the measured processes
// used, and what the rest of the machine ("foreign" CPU: other users, other jobs) used meanwhile.
// The load average cannot tell the two apart; /proc/stat minus our own process trees can.
import { readFileSync, readdirSync } from "node:fs";
import { resolve } from "node:path";

const TICK_MS = 1000 / 100; // USER_HZ

function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * utime + stime + cutime + cstime of a process in ms (its own CPU and that of the children it
 * reaped); 0 when gone. For this process (the benchmark: its measuring is not what it measures)
 * only what its reaped children used.
 */
export function cpuWithReapedMs(pid) {
  try {
    const f = statFields(pid);
    const reaped = Number(f[13]) + Number(f[14]);
    return (pid === process.pid ? reaped : Number(f[11]) + Number(f[12]) + reaped) * TICK_MS;
  } catch {
    return 0;
  }
}

/** Every pid at or below `root`. */
export function descendants(root) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parent = Number(statFields(entry)[1]);
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent).push(Number(entry));
    } catch {
      /* gone */
    }
  }
  const out = [];
  const walk = (pid) => {
    out.push(pid);
    for (const c of children.get(pid) ?? []) walk(c);
  };
  walk(root);
  return out;
}

/**
 * CPU of the trees under `roots` (live processes, each with what it reaped). Children a root
 * reaped count in its cutime; a live child counts once, on its own.
 */
export function treeCpuMs(roots) {
  const seen = new Set();
  let total = 0;
  for (const root of roots) {
    if (!root) continue;
    for (const pid of descendants(root)) {
      if (seen.has(pid)) continue;
      seen.add(pid);
      total += cpuWithReapedMs(pid);
    }
  }
  return total;
}

/** Busy CPU time of the whole machine in ms (all cores), from /proc/stat. */
export function machineBusyMs() {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
  return (cpu.reduce((a, b) => a + b, 0) - idle) * TICK_MS;
}

/**
 * Accumulates, over several measured windows, the wall time, the CPU of our processes (`roots()`
 * at the window's end: this process's children and the long-lived processes it measures) and the
 * machine's busy time. The benchmark's own CPU counts as neither ours nor foreign. Processes that are gone by the end of a window must have been reaped by a root (e.g. the
 * CLI runs this process spawned and waited for) so their CPU is in the root's cutime.
 */
export class CpuWindows {
  wallMs = 0;
  ownMs = 0;
  busyMs = 0;
  windows = 0;
  #start;

  constructor(roots) {
    this.roots = roots;
  }

  selfMs = 0;

  begin() {
    this.#start = {
      wall: performance.now(),
      own: treeCpuMs(this.roots()),
      busy: machineBusyMs(),
      self: process.cpuUsage(),
    };
  }

  end() {
    const s = this.#start;
    this.wallMs += performance.now() - s.wall;
    this.ownMs += treeCpuMs(this.roots()) - s.own;
    this.busyMs += machineBusyMs() - s.busy;
    const self = process.cpuUsage(s.self);
    this.selfMs += (self.user + self.system) / 1000;
    this.windows++;
  }

  /** CPU others used meanwhile, in % of one core (never below 0: /proc ticks are coarse). */
  foreignPct() {
    return this.wallMs > 0 ? (100 * Math.max(0, this.busyMs - this.ownMs - this.selfMs)) / this.wallMs : 0;
  }

  /** The sums of several accounts (e.g. one per series), for the foreign CPU of a whole phase. */
  static combined(list) {
    const c = new CpuWindows(() => []);
    for (const w of list) {
      c.wallMs += w.wallMs;
      c.ownMs += w.ownMs;
      c.busyMs += w.busyMs;
      c.selfMs += w.selfMs;
      c.windows += w.windows;
    }
    return c;
  }

  /** Our CPU per window, ms. */
  ownPerWindowMs() {
    return this.windows > 0 ? this.ownMs / this.windows : 0;
  }
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** "median (min–max)" of samples in ms, formatted in seconds or ms. */
export function spread(xs, unit = "ms") {
  const f = (x) => (unit === "s" ? (x / 1000).toFixed(2) : x.toFixed(0));
  return `${f(median(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`;
}

/** CPU of every thread of `pid` ("self" for this process) so far, ns, from schedstat (threads that ended are not counted: Node's do not end). */
export function threadsCpuNs(pid) {
  let total = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      /* thread gone */
    }
  }
  return total;
}

/** `--name value` options of `argv`, and the built trees given with `--root` (default: this checkout). */
export function benchArgs(argv, thisTree) {
  const opt = (name, dflt) => {
    const i = argv.indexOf(`--${name}`);
    return i === -1 ? dflt : argv[i + 1];
  };
  const roots = argv.flatMap((a, i) => (a === "--root" ? [resolve(argv[i + 1])] : []));
  if (roots.length === 0) roots.push(resolve(thisTree));
  return { opt, roots };
}
