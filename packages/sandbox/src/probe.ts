import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import * as path from "node:path";

/** Whether sandboxes can be made on this machine, and why not. */
export interface SandboxProbe {
  available: boolean;
  /** Why not, and how to fix it (set when unavailable). */
  reason?: string;
  /** bubblewrap's path and version (when found). */
  bwrap?: string;
  version?: string;
  /** prlimit's path (rlimits are skipped without it). */
  prlimit?: string;
}

/** Finds an executable on PATH (or the usual system directories). */
export function which(name: string, envPath = process.env.PATH ?? ""): string | undefined {
  for (const dir of [...envPath.split(path.delimiter), "/usr/bin", "/bin", "/usr/local/bin"]) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // next
    }
  }
  return undefined;
}

function run(
  file: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { timeout: timeoutMs, encoding: "utf8", env: { PATH: "/usr/bin:/bin" } },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
        resolve({ code, stdout, stderr: stderr || (err && code === -1 ? err.message : "") });
      },
    );
  });
}

const NAMESPACE_HINT =
  "user namespaces are not available to this user: enable them (sysctl kernel.unprivileged_userns_clone=1, " +
  "user.max_user_namespaces > 0; on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap), " +
  "or, inside a container, run it with user namespaces allowed";

/**
 * Tries a real sandbox: bubblewrap with new user, pid and network namespaces, no capabilities
 * and a fresh /proc, and checks that the network namespace has nothing but loopback.
 */
export async function probeSandbox(options: { bwrap?: string; timeoutMs?: number } = {}): Promise<SandboxProbe> {
  if (process.platform !== "linux")
    return {
      available: false,
      reason: `bubblewrap runs on Linux only (this is ${process.platform}); tools cannot be contained here`,
    };
  const bwrap = options.bwrap ?? which("bwrap");
  const prlimit = which("prlimit");
  const withPrlimit = prlimit ? { prlimit } : {};
  if (!bwrap)
    return {
      available: false,
      reason:
        "bubblewrap (bwrap) is not installed: `apt-get install bubblewrap` (Debian, Ubuntu), `dnf install bubblewrap` (Fedora)",
      ...withPrlimit,
    };
  const timeoutMs = options.timeoutMs ?? 10_000;
  const ver = await run(bwrap, ["--version"], timeoutMs);
  const version = ver.stdout.trim().replace(/^bubblewrap\s+/, "");
  if (ver.code !== 0)
    return {
      available: false,
      reason: `${bwrap} --version failed: ${ver.stderr.trim() || `exit code ${ver.code}`}`,
      bwrap,
      ...withPrlimit,
    };
  const args = [
    "--die-with-parent",
    "--unshare-all",
    "--unshare-user",
    "--disable-userns",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--",
    "/bin/cat",
    "/proc/net/dev",
  ];
  const res = await run(bwrap, args, timeoutMs);
  if (res.code !== 0) {
    const err = res.stderr.trim();
    const unknownOption = /Unknown option (--\S+)/.exec(err);
    const reason = unknownOption
      ? `bubblewrap ${version} lacks ${unknownOption[1]}: version 0.8.0 or newer is needed`
      : /namespace|uid map|Operation not permitted|Permission denied|No space left/i.test(err)
        ? `${NAMESPACE_HINT} (bwrap said: ${err.split("\n")[0]})`
        : `a test sandbox failed: ${err || `exit code ${res.code}`}`;
    return { available: false, reason, bwrap, version, ...withPrlimit };
  }
  const interfaces = res.stdout
    .split("\n")
    .slice(2)
    .map((l) => l.split(":")[0]?.trim())
    .filter(Boolean);
  if (interfaces.some((i) => i !== "lo")) {
    return {
      available: false,
      reason: `the sandbox's network namespace has interfaces other than loopback (${interfaces.join(", ")})`,
      bwrap,
      version,
      ...withPrlimit,
    };
  }
  return { available: true, bwrap, version, ...withPrlimit };
}

let cached: Promise<SandboxProbe> | undefined;

/** probeSandbox, run once per process. */
export function probeSandboxOnce(): Promise<SandboxProbe> {
  cached ??= probeSandbox();
  return cached;
}
