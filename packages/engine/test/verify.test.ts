// Checking a connecting process from outside (/proc), not from what it says about itself: real
// child processes, one of them in its own pid, user and network namespaces (unshare).
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { checkSpawnedProcess, missingNamespaces } from "../src/agent/verify.js";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
});

/** Starts `argv` and waits for the pid it prints (its pid as it sees it). */
async function start(argv: string[]): Promise<{ child: ChildProcess; selfPid: number }> {
  const child = spawn(argv[0] ?? "", argv.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  const selfPid = await new Promise<number>((resolve, reject) => {
    child.stdout?.once("data", (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once("exit", (code) => reject(new Error(`exited with ${String(code)}`)));
  });
  return { child, selfPid };
}

const script = "process.stdout.write(String(process.pid) + '\\n'); setInterval(() => {}, 1000);";
const linux = existsSync("/proc/self/status");
const canUnshare = linux && spawnSync("unshare", ["-rpfn", "--mount-proc", "true"]).status === 0;

describe.skipIf(!linux)("checkSpawnedProcess", () => {
  it("finds the spawned process by the pid it reports and reads its uid and namespaces", async () => {
    const { child, selfPid } = await start([process.execPath, "-e", script]);
    const check = checkSpawnedProcess(child.pid ?? -1, selfPid);
    expect(check).toMatchObject({
      ok: true,
      facts: { hostPid: child.pid, uid: process.getuid?.(), ownNamespaces: [] },
    });
  });

  it("refuses a pid that is not the spawned process nor under it", async () => {
    const { child } = await start([process.execPath, "-e", script]);
    const check = checkSpawnedProcess(child.pid ?? -1, process.pid);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toMatch(/no such process runs under the process the Engine spawned/);
  });

  it.skipIf(!canUnshare)(
    "follows a launcher into its own pid namespace (NSpid) and sees the namespaces it does not share",
    async () => {
      const { child, selfPid } = await start([
        "unshare",
        "-rpfn",
        "--kill-child",
        "--mount-proc",
        process.execPath,
        "-e",
        script,
      ]);
      expect(selfPid).toBeLessThan(10); // the pid as seen inside
      const check = checkSpawnedProcess(child.pid ?? -1, selfPid);
      expect(check.ok).toBe(true);
      if (check.ok) {
        expect(check.facts?.hostPid).not.toBe(selfPid);
        expect(check.facts?.ownNamespaces).toEqual(expect.arrayContaining(["net", "pid", "user"]));
      }
    },
  );

  it("says when the spawned process is gone", () => {
    expect(checkSpawnedProcess(2 ** 22 + 4321, 5)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/is gone/) as unknown,
    });
  });
});

describe.skipIf(!linux)("missingNamespaces", () => {
  it("names the namespaces a process shares with the Engine, and nothing for one in bubblewrap's own", async () => {
    const plain = await start([process.execPath, "-e", script]);
    const plainFacts = checkSpawnedProcess(plain.child.pid ?? -1, plain.selfPid);
    if (!plainFacts.ok || !plainFacts.facts) throw new Error("the plain child was not found");
    expect(missingNamespaces(plainFacts.facts, ["pid", "mnt", "net"])).toMatch(
      /^it shares the Engine's pid, mnt, net namespaces \(host pid \d+/,
    );
    if (!existsSync("/usr/bin/bwrap")) return;
    const walled = await start([
      "/usr/bin/bwrap",
      "--unshare-all",
      "--die-with-parent",
      "--ro-bind",
      "/",
      "/",
      "--proc",
      "/proc",
      "--dev",
      "/dev",
      "--",
      process.execPath,
      "-e",
      script,
    ]);
    const walledFacts = checkSpawnedProcess(walled.child.pid ?? -1, walled.selfPid);
    if (!walledFacts.ok || !walledFacts.facts)
      throw new Error(`the sandboxed child was not found: ${walledFacts.ok ? "no /proc" : walledFacts.reason}`);
    expect(missingNamespaces(walledFacts.facts, ["user", "pid", "mnt", "ipc", "uts", "net"])).toBeUndefined();
  });
});
