import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// A policy's patterns are the user's, the strings matched against them the model's. On a
// backtracking engine `git * -c * -c * push` took 3.5 s against a 5 KB command and grows with the
// cube of its length, holding the Engine's thread. Each check runs in a child with a deadline, so a
// regression fails here instead of hanging the test run.
const shieldDist = fileURLToPath(new URL("../dist/index.js", import.meta.url));

function evaluateInChild(policyRules: string, tool: string, args: unknown): { decision: string; rules: string[] } {
  const script = `import { createShield, parsePolicy } from ${JSON.stringify(shieldDist)};
    const s = createShield({ policy: parsePolicy(${JSON.stringify(`version: 1\nname: t\nrules:\n${policyRules}`)}, "t.yaml"), home: "/home/u", workspace: "/home/u/ws", cache: false, rateLimitPerMinute: 0 });
    console.log(JSON.stringify(s.evaluateSync({ tool: ${JSON.stringify(tool)}, args: ${JSON.stringify(args)} })));`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 20_000 });
  if (r.status !== 0)
    throw new Error(
      `the Shield did not answer (status ${r.status}, signal ${r.signal}: killed after 20 s?): ${r.stderr}`,
    );
  return JSON.parse(r.stdout) as { decision: string; rules: string[] };
}

describe("policy patterns run in linear time", () => {
  it("a command pattern with several * against a 60 KB command line", () => {
    const rules = `  - id: pushes\n    decision: block\n    commands: ["git * -c * -c * push"]\n  - id: rest\n    decision: allow\n`;
    const v = evaluateInChild(rules, "t__run", { command: `git ${"-c ".repeat(20_000)}pull` });
    expect(v.rules).not.toContain("pushes");
    const hit = evaluateInChild(rules, "t__run", { command: `git ${"-c ".repeat(20_000)}push` });
    expect(hit.decision).toBe("block");
    expect(hit.rules).toContain("pushes");
  });

  it("an args regex that backtracks on JavaScript's engine against a long value", () => {
    const rules = `  - id: as\n    decision: block\n    args: { name: "^(a+)+$" }\n  - id: rest\n    decision: allow\n`;
    expect(evaluateInChild(rules, "t__x", { name: `${"a".repeat(5000)}!` }).rules).not.toContain("as");
    expect(evaluateInChild(rules, "t__x", { name: "a".repeat(5000) }).rules).toContain("as");
  });
});

describe("path globs run in linear time", () => {
  it("a glob with four globstars against a 4 KB path of repeated names", () => {
    const rules = `  - id: deep\n    decision: block\n    paths: ["**/a/**/a/**/a/**/b"]\n  - id: rest\n    decision: allow\n`;
    const miss = evaluateInChild(rules, "files__read_file", { path: `/${"a/".repeat(2040)}c` });
    expect(miss.rules).not.toContain("deep");
    const hit = evaluateInChild(rules, "files__read_file", { path: `/${"a/".repeat(2040)}b` });
    expect(hit.decision).toBe("block");
    expect(hit.rules).toContain("deep");
  });

  it("a path Linux could not name matches no path rule and is reported as an analysis limit (asked, never allowed)", () => {
    const rules = `  - id: ws\n    decision: allow\n    paths: ["/home/u/ws/**"]\n`;
    expect(evaluateInChild(rules, "files__read_file", { path: "/home/u/ws/a.txt" }).decision).toBe("allow");
    const long = evaluateInChild(rules, "files__read_file", { path: `/home/u/ws/${"d/".repeat(2100)}a.txt` });
    expect(long.decision).toBe("escalate");
    expect(long.rules).toContain("shield.limits");
    const name = evaluateInChild(rules, "files__read_file", { path: `/home/u/ws/${"n".repeat(300)}` });
    expect(name.decision).toBe("escalate");
  });
});
