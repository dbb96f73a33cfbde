import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { bwrapArgs, HOSTNAME } from "./bwrap.js";
import { codeView } from "./code.js";
import { createSandboxCgroup } from "./cgroup.js";
import type { SandboxCgroup } from "./cgroup.js";
import { SandboxError } from "./errors.js";
import { hostFacts } from "./facts.js";
import { planMounts } from "./plan.js";
import type { HostFacts, Mount } from "./plan.js";
import { which } from "./probe.js";
import { EgressProxy } from "./proxy/server.js";
import type { EgressEvent, Resolver } from "./proxy/server.js";
import type { AppliedLimit, SandboxResources, SandboxSpec } from "./spec.js";
import { MADE_ETC_FILES, madeEtc } from "./view.js";

/** Port of the in-sandbox relay to the egress proxy (HTTP_PROXY); the sandbox has its own loopback. */
export const PROXY_PORT = 3128;

// Compiled JS, also when this module runs from its sources (tests).
const INIT = fileURLToPath(new URL("../dist/init.js", import.meta.url));

export interface EgressOptions {
  /** Host filter; `null` allows every public host (network: any). */
  allowHost: ((host: string, port: number) => boolean) | null;
  allowAddresses?: readonly string[];
  onConnection?: (event: EgressEvent) => void;
  resolve?: Resolver;
}

export interface PrepareOptions {
  spec: SandboxSpec;
  resources?: SandboxResources;
  /** The command to run inside (argv). */
  command: readonly string[];
  /**
   * A directory private to this launch (made 0700; removed by close()). Its `sock/`
   * subdirectory is bound into the sandbox and holds the proxy and relay sockets.
   */
  runDir: string;
  /** Required with network allowlist/any. */
  egress?: EgressOptions;
  /** Relay a unix socket (`inboundSocket`) to this TCP port inside, for a server that listens on TCP. */
  inboundPort?: number;
  /** Environment of the sandboxed process (proxy variables, HOME and TMPDIR are set). */
  env?: Record<string, string>;
  bwrap?: string;
  prlimit?: string;
  /** Node for the relay init (default: this process's). */
  node?: string;
  facts?: HostFacts;
}

export interface PreparedSandbox {
  /** Spawn this (argv[0] with the rest as arguments) with `env`. */
  argv: string[];
  /** The mounts the view is made of, in order (for `capability list` and the view's tests). */
  mounts: Mount[];
  env: Record<string, string>;
  /** What each resource limit was enforced by. */
  applied: AppliedLimit[];
  /** Unix socket outside that reaches `inboundPort` inside. */
  inboundSocket?: string;
  proxy?: EgressProxy;
  /** Stops the proxy and removes the cgroup and the run directory; call after the process exited. */
  close(): Promise<void>;
}

/**
 * Everything needed to start `command` in a sandbox: the argv (cgroup join, bubblewrap,
 * rlimits, relay init, command), its environment, and the egress proxy it talks to.
 */
export async function prepareSandbox(options: PrepareOptions): Promise<PreparedSandbox> {
  const { spec } = options;
  const bwrap = options.bwrap ?? which("bwrap");
  if (!bwrap)
    throw new SandboxError("unavailable", "bubblewrap (bwrap) is not installed: `apt-get install bubblewrap`");
  if (spec.network !== "none" && !options.egress)
    throw new SandboxError("invalid_spec", `network: ${spec.network} needs egress options (the proxy's host filter)`);
  const runDir = path.resolve(options.runDir);
  const sockDir = path.join(runDir, "sock");
  mkdirSync(sockDir, { recursive: true, mode: 0o700 });
  const emptyFile = path.join(runDir, "empty");
  writeFileSync(emptyFile, "", { mode: 0o400 });

  const facts = options.facts ?? hostFacts(spec.home);
  const node = options.node ?? process.execPath;
  const files = writeMadeEtc(runDir, facts.home);
  const mounts = viewMounts(spec, options.command, {
    node,
    facts,
    ...(options.env?.PATH ? { path: options.env.PATH } : {}),
    files,
    sockets: [sockDir],
    protect: [runDir],
  });
  const workspaceReal =
    spec.filesystem === "workspace" && spec.workspace ? facts.inspect(spec.workspace).real : undefined;
  const cwd = spec.cwd ?? workspaceReal ?? "/";

  // HOME is the private one; a TMPDIR of the host would not be in the view.
  const env: Record<string, string> = { ...(options.env ?? {}), HOME: facts.home, TMPDIR: "/tmp" };
  const relayArgs: string[] = [];
  let proxy: EgressProxy | undefined;
  const cleanups: Array<() => Promise<void> | void> = [];
  try {
    if (spec.network !== "none" && options.egress) {
      const socketPath = path.join(sockDir, "egress.sock");
      proxy = await EgressProxy.listen({ socketPath, ...options.egress });
      const p = proxy;
      cleanups.push(() => p.close());
      relayArgs.push("--tcp-to-unix", `${PROXY_PORT}:${socketPath}`);
      Object.assign(env, proxyEnv(PROXY_PORT));
    }
    let inboundSocket: string | undefined;
    if (options.inboundPort !== undefined) {
      inboundSocket = path.join(sockDir, "inbound.sock");
      relayArgs.push("--unix-to-tcp", `${inboundSocket}:${options.inboundPort}`);
    }

    const resources = options.resources ?? {};
    const cgroup =
      resources.pids !== undefined || resources.memoryMb !== undefined
        ? createSandboxCgroup(`palisade-${randomBytes(6).toString("hex")}`, {
            pids: resources.pids,
            memoryMb: resources.memoryMb,
          })
        : undefined;
    // Not awaited: closing must not wait for the kernel to reap the sandbox's last processes.
    if (cgroup) cleanups.push(() => void removeCgroup(cgroup));
    const prlimit = options.prlimit ?? which("prlimit");
    const { applied, rlimitArgs } = limitsFor(
      resources,
      cgroup,
      prlimit !== undefined,
      relayArgs.length > 0 || isNode(options.command[0]),
    );

    const argv: string[] = [];
    if (cgroup) {
      // Join the cgroup before bubblewrap starts, so nothing it forks is outside the limits.
      argv.push(
        "/bin/sh",
        "-c",
        'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"',
        "palisade-cgroup",
        ...cgroup.procsFiles,
        "--",
      );
    }
    argv.push(bwrap, ...bwrapArgs({ mounts, cwd, emptyFile }));
    if (prlimit && rlimitArgs.length > 0) argv.push(prlimit, ...rlimitArgs, "--");
    if (relayArgs.length > 0) argv.push(node, INIT, ...relayArgs, "--");
    argv.push(...options.command);

    let closed = false;
    return {
      argv,
      mounts,
      env,
      applied,
      ...(inboundSocket ? { inboundSocket } : {}),
      ...(proxy ? { proxy } : {}),
      async close() {
        if (closed) return;
        closed = true;
        for (const c of cleanups.reverse()) await c();
        rmSync(runDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    for (const c of cleanups.reverse()) await c();
    rmSync(runDir, { recursive: true, force: true });
    throw err;
  }
}

export interface ViewOptions {
  /** Node for the relay init (default: this process's). */
  node?: string;
  /** PATH to find the command's first word on. */
  path?: string;
  facts?: HostFacts;
  /** Made files (default: placeholders named after what they replace, for a preview). */
  files?: ReadonlyArray<{ src: string; dest: string }>;
  sockets?: readonly string[];
  protect?: readonly string[];
}

/**
 * The mounts of the view a sandbox for `command` gets (what prepareSandbox binds): the spec,
 * the code the command runs (codeView), the made /etc files, the launch's sockets.
 */
export function viewMounts(spec: SandboxSpec, command: readonly string[], options: ViewOptions = {}): Mount[] {
  const facts = options.facts ?? hostFacts(spec.home);
  // A configured working directory is where the program lives (`cwd: ~/caps/x`, `node main.js`).
  const cwd = spec.cwd !== undefined && path.isAbsolute(spec.cwd) ? [spec.cwd] : [];
  const code = codeView(
    [
      options.node ?? process.execPath,
      INIT,
      ...programsOf(command, options.path, spec.cwd),
      ...cwd,
      ...(spec.code ?? []),
    ],
    { home: facts.home },
  );
  const files = options.files ?? MADE_ETC_FILES.map((dest) => ({ src: `(made for the sandbox)${dest}`, dest }));
  return planMounts(
    {
      ...spec,
      code: code.paths,
      links: [...code.links, ...(spec.links ?? [])],
      files: [...files, ...(spec.files ?? [])],
      sockets: [...(spec.sockets ?? []), ...(options.sockets ?? [])],
      protect: [...(spec.protect ?? []), ...(options.protect ?? [])],
    },
    facts,
  );
}

/**
 * The program files a command runs: its first word (found on PATH when not a path) and every
 * argument that names an existing file, absolute or relative to the configured working directory
 * (a script). Directories named as arguments are data, not code: they are visible only when the
 * spec lists them.
 */
function programsOf(command: readonly string[], envPath: string | undefined, cwd: string | undefined): string[] {
  const [first, ...rest] = command;
  const out: string[] = [];
  const inCwd = (a: string): string | undefined =>
    cwd !== undefined && path.isAbsolute(cwd) && isFile(path.join(cwd, a)) ? path.join(cwd, a) : undefined;
  const exe =
    first === undefined
      ? undefined
      : path.isAbsolute(first)
        ? first
        : first.includes("/")
          ? inCwd(first)
          : which(first, envPath ?? "");
  if (exe) out.push(exe);
  for (const a of rest) {
    const file = path.isAbsolute(a) ? (isFile(a) ? a : undefined) : inCwd(a);
    if (file) out.push(file);
  }
  return out;
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Writes this sandbox's /etc/passwd, /etc/group and /etc/hosts into the run directory. */
function writeMadeEtc(runDir: string, home: string): Array<{ src: string; dest: string }> {
  const dir = path.join(runDir, "etc");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const u = userInfo();
  const made = madeEtc(
    { uid: u.uid, gid: u.gid, user: u.username, group: u.gid === 0 ? "root" : u.username, home },
    HOSTNAME,
  );
  return Object.entries(made).map(([dest, content]) => {
    const src = path.join(dir, path.basename(dest));
    writeFileSync(src, content, { mode: 0o444 });
    return { src, dest };
  });
}

/**
 * Variables that make curl, git, npm, pip and Node's fetch use the in-sandbox proxy relay.
 * `PALISADE_EGRESS_PROXY` names it for programs written for Palisade, which send everything
 * through it (NO_PROXY does not apply to them).
 */
export function proxyEnv(port: number): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return {
    PALISADE_EGRESS_PROXY: url,
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: "localhost,127.0.0.1,::1",
    no_proxy: "localhost,127.0.0.1,::1",
    npm_config_proxy: url,
    npm_config_https_proxy: url,
    NODE_USE_ENV_PROXY: "1",
  };
}

/**
 * Address space Node reserves at start that RLIMIT_DATA counts (private writable mappings): V8's
 * 512 MiB code range plus thread stacks and heap; 560 MiB measured for Node 24 on x86-64, with a
 * margin. RLIMIT_AS cannot be used at all: Node maps about 1.3 GiB of address space at start.
 */
export const NODE_DATA_RESERVE_MB = 640;

const MiB = 1024 * 1024;

/** Whether `file` is a Node binary (by name, or this process's own). */
function isNode(file: string | undefined): boolean {
  return file !== undefined && (file === process.execPath || /^node(js)?[\d.-]*$/.test(path.basename(file)));
}

function limitsFor(
  r: SandboxResources,
  cgroup: SandboxCgroup | undefined,
  hasPrlimit: boolean,
  runsNode: boolean,
): { applied: AppliedLimit[]; rlimitArgs: string[] } {
  const applied: AppliedLimit[] = [];
  const rlimitArgs: string[] = ["--core=0"];
  const root = process.getuid?.() === 0;
  const noPrlimit = "prlimit (util-linux) is not installed";
  const whole = "the whole sandbox";
  if (r.pids !== undefined) {
    if (cgroup?.pids)
      applied.push({
        limit: "pids",
        value: r.pids,
        by: "cgroup",
        mechanism: `pids cgroup v${cgroup.pids}`,
        note: whole,
      });
    else if (root)
      applied.push({
        limit: "pids",
        value: r.pids,
        by: "none",
        note: "no writable pids cgroup, and root is exempt from RLIMIT_NPROC",
      });
    else if (hasPrlimit) {
      // Counted per user namespace, and each sandbox has its own: a limit for this sandbox.
      rlimitArgs.push(`--nproc=${r.pids}`);
      applied.push({
        limit: "pids",
        value: r.pids,
        by: "rlimit",
        mechanism: "RLIMIT_NPROC",
        note: `${whole}, counted in its own user namespace`,
      });
    } else applied.push({ limit: "pids", value: r.pids, by: "none", note: noPrlimit });
  }
  if (r.memoryMb !== undefined) {
    if (cgroup?.memory)
      applied.push({
        limit: "memoryMb",
        value: r.memoryMb,
        by: "cgroup",
        mechanism: `memory cgroup v${cgroup.memory}`,
        note: whole,
      });
    else if (hasPrlimit) {
      // Per process, on private writable memory; a Node process needs its start-up reservation on top.
      const reserve = runsNode ? NODE_DATA_RESERVE_MB : 0;
      const mb = r.memoryMb + reserve;
      rlimitArgs.push(`--data=${mb * MiB}`);
      applied.push({
        limit: "memoryMb",
        value: r.memoryMb,
        by: "rlimit",
        mechanism: `RLIMIT_DATA ${mb} MiB`,
        note: `each process, no writable memory cgroup${reserve ? `; ${reserve} MiB added for what Node reserves at start` : ""}`,
      });
    } else
      applied.push({
        limit: "memoryMb",
        value: r.memoryMb,
        by: "none",
        note: `no writable memory cgroup, and ${noPrlimit}`,
      });
  }
  if (r.cpuSeconds !== undefined) {
    if (hasPrlimit) {
      rlimitArgs.push(`--cpu=${r.cpuSeconds}`);
      applied.push({
        limit: "cpuSeconds",
        value: r.cpuSeconds,
        by: "rlimit",
        mechanism: "RLIMIT_CPU",
        note: "each process",
      });
    } else applied.push({ limit: "cpuSeconds", value: r.cpuSeconds, by: "none", note: noPrlimit });
  }
  if (r.fileSizeMb !== undefined) {
    if (hasPrlimit) {
      rlimitArgs.push(`--fsize=${r.fileSizeMb * MiB}`);
      applied.push({
        limit: "fileSizeMb",
        value: r.fileSizeMb,
        by: "rlimit",
        mechanism: "RLIMIT_FSIZE",
        note: "each file",
      });
    } else applied.push({ limit: "fileSizeMb", value: r.fileSizeMb, by: "none", note: noPrlimit });
  }
  return { applied, rlimitArgs };
}

async function removeCgroup(cgroup: SandboxCgroup): Promise<void> {
  // The last processes may still be exiting (killed with the sandbox's pid namespace): retry for
  // a few seconds; what is still left then is swept by a later launch.
  for (let i = 0; i < 100; i++) {
    cgroup.remove();
    if (cgroup.procsFiles.every((f) => !existsSync(path.dirname(f)))) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}
