// Files that run later, outside every sandbox: a real Engine under the default policy, the
// scripted model asking for the call, and nobody approving (every question is answered "deny").
// Each case is judged by its effect after the turn: the test itself runs the git command a user
// would run next, outside any sandbox, and checks that no marker appears.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalDecision } from "@palisade/protocol/types";
import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import { probeSandbox } from "@palisade/sandbox";
import { startContainment } from "./harness.js";
import type { Containment } from "./harness.js";

const probe = await probeSandbox();
if (!probe.available && process.env.CI) throw new Error(`CI must run the containment proofs: ${probe.reason}`);

const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });

/** One turn with these calls in which every approval is denied: how many were asked, how many a capability started. */
async function denyingTurn(
  h: Containment,
  calls: Array<{ name: string; arguments: Record<string, unknown> }>,
): Promise<{ asked: number; executed: number }> {
  h.model.clearTurns();
  h.model.enqueue(
    { toolCalls: [{ name: "load_tools", arguments: { groups: ["files", "shell"] } }] },
    { toolCalls: calls },
    { content: "done" },
  );
  let asked = 0;
  let executed = 0;
  for await (const ev of h.client.sendMessage({ content: "go" })) {
    if (ev.eventType === T.APPROVAL_NEEDED && ev.approvalNeeded) {
      asked++;
      await h.client.resolveApproval({
        approvalId: ev.approvalNeeded.approvalId,
        decision: ApprovalDecision.DENY,
        sessionId: ev.sessionId,
      });
    }
    if (ev.eventType === T.ACTION_STARTED && !ev.actionStarted?.toolName.startsWith("load_tools")) executed++;
  }
  return { asked, executed };
}

describe.skipIf(!probe.available)("writes that run later, default policy, nobody approving", () => {
  let h: Containment;

  beforeAll(async () => {
    h = await startContainment({ policy: "default" });
    const src = join(h.workspace, "src");
    mkdirSync(src);
    git(src, "init", "-q");
    writeFileSync(join(src, "a.txt"), "a\n");
    git(src, "add", "a.txt");
    git(src, "commit", "-qm", "a");
    // A config file to include and a template whose hook runs on checkout, both in the workspace.
    writeFileSync(join(h.workspace, "evil.cfg"), "[core]\n\tfsmonitor = touch FSMONITOR-RAN\n");
    mkdirSync(join(h.workspace, "tpl", "hooks"), { recursive: true });
    writeFileSync(join(h.workspace, "tpl", "hooks", "post-checkout"), "#!/bin/sh\ntouch HOOK-RAN\n", { mode: 0o755 });
    // A repository the user had before the session, with a program-running key of their own.
    const existing = join(h.workspace, "existing");
    mkdirSync(existing);
    git(existing, "init", "-q");
    git(existing, "commit", "-q", "--allow-empty", "-m", "first");
    git(existing, "config", "core.hooksPath", ".husky");
    // What the model runs: python3 *.py is allowed by the default policy, and the Shield cannot
    // read what the script does.
    writeFileSync(
      join(h.workspace, "mk.py"),
      [
        "import os, subprocess",
        "def git(*a): subprocess.run(['git', '-c', 'user.name=m', '-c', 'user.email=m@example.com', *a], check=True)",
        "git('init', '-q', 'vendor/py')",
        "git('-C', 'vendor/py', 'commit', '-q', '--allow-empty', '-m', 'x')",
        "git('-C', 'vendor/py', 'config', 'core.fsmonitor', 'touch FSMONITOR-RAN')",
        "hook = 'vendor/py/.git/hooks/post-checkout'",
        "open(hook, 'w').write('#!/bin/sh\\ntouch HOOK-RAN\\n')",
        "os.chmod(hook, 0o755)",
        "git('-C', 'existing', 'config', 'core.fsmonitor', 'touch FSMONITOR-RAN')",
        "print('made')",
      ].join("\n"),
    );
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  });

  /** Runs a user's next git commands in `dir` (outside any sandbox); which markers they left. */
  function userRunsGit(dir: string): string[] {
    const repo = join(h.workspace, dir);
    for (const m of ["FSMONITOR-RAN", "HOOK-RAN"]) rmSync(join(repo, m), { force: true });
    if (existsSync(join(repo, ".git"))) {
      git(repo, "status");
      git(repo, "checkout", "-q", "-b", "next");
    }
    return ["FSMONITOR-RAN", "HOOK-RAN"].filter((m) => existsSync(join(repo, m)));
  }

  it.each([
    ["git clone -c core.fsmonitor='touch FSMONITOR-RAN' src vendor/lib", "vendor/lib"],
    // The included file is named by its absolute path in the workspace (a relative one would be
    // read from .git/, and the Shield resolves it from the workspace, outside).
    ["git clone -c include.path=WS/evil.cfg src vendor/inc", "vendor/inc"],
    ["git clone --template=tpl src vendor/tpl", "vendor/tpl"],
  ])("%s never leaves a repo whose next git status or checkout runs a program", async (command, dir) => {
    const r = await denyingTurn(h, [
      { name: "shell__execute_command", arguments: { command: command.replace("WS", h.workspace) } },
    ]);
    expect(userRunsGit(dir), "markers left by the user's next git commands").toEqual([]);
    expect(r.asked, "the Shield asked").toBe(1);
    expect(r.executed).toBe(0);
  });

  it("a plain git clone still runs without asking, and its repo is harmless", async () => {
    const r = await denyingTurn(h, [
      { name: "shell__execute_command", arguments: { command: "git clone src vendor/plain" } },
    ]);
    expect(r).toEqual({ asked: 0, executed: 1 });
    expect(existsSync(join(h.workspace, "vendor/plain/a.txt"))).toBe(true);
    expect(userRunsGit("vendor/plain")).toEqual([]);
  });

  it.each([".vscode/tasks.json", ".cargo/config.toml", "AGENTS.md"])(
    "files__write_file %s asks, and denied it is never written",
    async (rel) => {
      const content = rel.endsWith(".json")
        ? JSON.stringify({
            version: "2.0.0",
            tasks: [{ label: "x", type: "shell", command: "touch TASK-RAN", runOptions: { runOn: "folderOpen" } }],
          })
        : "x\n";
      const r = await denyingTurn(h, [
        { name: "files__write_file", arguments: { path: join(h.workspace, rel), content } },
      ]);
      expect(existsSync(join(h.workspace, rel)), `${rel} was written`).toBe(false);
      expect(r).toEqual({ asked: 1, executed: 0 });
    },
  );

  it("a script that plants program-running config and hooks in nested repositories: the Engine undoes them after the call", async () => {
    const r = await denyingTurn(h, [{ name: "shell__execute_command", arguments: { command: "python3 mk.py" } }]);
    expect(r).toEqual({ asked: 0, executed: 1 });
    expect(existsSync(join(h.workspace, "vendor/py/.git"))).toBe(true);
    expect(userRunsGit("vendor/py"), "markers in the repository the script made").toEqual([]);
    expect(userRunsGit("existing"), "markers in the repository the user had").toEqual([]);
    // The user's own entry stays; the model is told what was undone.
    expect(git(join(h.workspace, "existing"), "config", "core.hooksPath").trim()).toBe(".husky");
    const told =
      h.model
        .chatRequests()
        .at(-1)
        ?.messages.filter((m) => m.role === "tool")
        .map((m) => JSON.stringify(m.content))
        .join("\n") ?? "";
    expect(told).toMatch(/removed core\.fsmonitor from vendor\/py\/\.git\/config/);
    expect(told).toMatch(/renamed the hooks post-checkout in vendor\/py\/\.git\/hooks/);
    expect(told).toMatch(/removed core\.fsmonitor from existing\/\.git\/config/);
  });
});
