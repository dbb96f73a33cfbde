// Resource limits where no cgroup is writable: an unprivileged user (nobody) runs the launcher,
// as a user without a delegated cgroup would. Memory falls back to RLIMIT_DATA (with Node's
// start-up reservation added), processes to RLIMIT_NPROC in the sandbox's own user namespace.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NODE_DATA_RESERVE_MB, which } from "@palisade/sandbox";
import type { AppliedLimit } from "@palisade/sandbox";
import { probe } from "./helpers.js";

const runuser = which("runuser") ?? ["/usr/sbin/runuser", "/sbin/runuser"].find((f) => existsSync(f));
const canSwitch = process.getuid?.() === 0 && runuser !== undefined;
const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url));

let dir = "";
let script = "";

beforeAll(() => {
  if (!canSwitch) return;
  dir = mkdtempSync("/var/tmp/pal-limits-");
  chmodSync(dir, 0o755);
  script = path.join(dir, "launch.mjs");
  // Launches `node -e <allocate N MiB>` in a sandbox with the given limits, as whoever runs it.
  writeFileSync(
    script,
    `import { prepareSandbox } from ${JSON.stringify(dist)};
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
const [memoryMb, mb, pids] = process.argv.slice(2, 5).map(Number);
const shell = process.argv[5];
const code = "try { const k = []; for (let i = 0; i < " + mb + "; i += 8) k.push(Buffer.alloc(8 << 20, 1)); console.log('allocated') } catch (e) { console.log('refused: ' + e.message) }";
const sandbox = await prepareSandbox({
  spec: { filesystem: "none", network: "none", home: "/nonexistent" },
  resources: { memoryMb, pids },
  runDir: mkdtempSync("/tmp/pal-lim-"),
  command: shell ? ["/bin/sh", "-c", shell] : [process.execPath, "-e", code],
  env: { PATH: "/usr/bin:/bin" },
});
const r = spawnSync(sandbox.argv[0], sandbox.argv.slice(1), { env: sandbox.env, encoding: "utf8", timeout: 30000 });
await sandbox.close();
console.log(JSON.stringify({ applied: sandbox.applied, out: r.stdout + r.stderr, status: r.status }));
`,
  );
  chmodSync(script, 0o644);
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function asNobody(
  memoryMb: number,
  allocateMb: number,
  pids = 64,
  shell?: string,
): { applied: AppliedLimit[]; out: string; status: number | null } {
  const r = spawnSync(
    runuser ?? "runuser",
    [
      "-u",
      "nobody",
      "--",
      process.execPath,
      script,
      String(memoryMb),
      String(allocateMb),
      String(pids),
      ...(shell ? [shell] : []),
    ],
    {
      encoding: "utf8",
      timeout: 60_000,
      cwd: "/",
    },
  );
  const last = r.stdout.trim().split("\n").at(-1) ?? "";
  if (!last.startsWith("{")) throw new Error(`the launcher failed: ${r.stdout}${r.stderr}`);
  return JSON.parse(last) as { applied: AppliedLimit[]; out: string; status: number | null };
}

describe.skipIf(!probe.available || !canSwitch)("limits without a writable cgroup (an unprivileged user)", () => {
  it("memory: RLIMIT_DATA per process, Node's reservation added; an allocation over it fails inside, cleanly", () => {
    // Far over, whether or not V8 counted its code range this time.
    const over = asNobody(64, 2048);
    const memory = over.applied.find((a) => a.limit === "memoryMb");
    expect(memory).toMatchObject({ by: "rlimit", mechanism: `RLIMIT_DATA ${64 + NODE_DATA_RESERVE_MB} MiB` });
    expect(memory?.note).toMatch(/each process.*Node reserves at start/);
    expect(over.out).toMatch(/refused: .*(memory|Memory)/);
    expect(over.out).not.toContain("allocated");
    expect(over.status).toBe(0);
  });

  it("memory: the same program within the limit runs (the limit, not the sandbox, refused it)", () => {
    const within = asNobody(64, 32);
    expect(within.out).toContain("allocated");
  });

  it("pids: RLIMIT_NPROC in the sandbox's own user namespace stops the 41st process", () => {
    const r = asNobody(256, 8, 40, "n=0; while [ $n -lt 80 ]; do sleep 3 & n=$((n+1)); done 2>&1 | tail -1; echo end");
    expect(r.applied.find((a) => a.limit === "pids")).toMatchObject({ by: "rlimit", mechanism: "RLIMIT_NPROC" });
    expect(r.out).toMatch(/Cannot fork|Resource temporarily unavailable/);
    expect(r.out).toContain("end");
  });

  it("pids: without the limit the same 80 processes start (the limit, not the sandbox, stopped them)", () => {
    const r = asNobody(256, 8, 200, "n=0; while [ $n -lt 80 ]; do sleep 3 & n=$((n+1)); done 2>&1 | tail -1; echo end");
    expect(r.out).not.toMatch(/Cannot fork|Resource temporarily unavailable/);
    expect(r.out).toContain("end");
  });
});
