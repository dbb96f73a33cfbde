import { PolicyError, createShield, loadPolicy, parsePolicy } from "@palisade/shield";
import type { Shield } from "@palisade/shield";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HOME, WORKSPACE, check, sh } from "./helpers.js";

function problems(text: string): string[] {
  try {
    parsePolicy(text, "p.yaml");
  } catch (e) {
    expect(e).toBeInstanceOf(PolicyError);
    return (e as PolicyError).problems.map((p) => `${p.line}:${p.col} ${p.path ? `${p.path}: ` : ""}${p.message}`);
  }
  throw new Error("policy was accepted");
}

/** A policy file as a user writes it, loaded the way the Engine loads it. */
async function shieldOf(yaml: string): Promise<Shield> {
  const file = join(mkdtempSync(join(tmpdir(), "pal-policy-")), "policy.yaml");
  writeFileSync(file, yaml);
  return createShield({
    policy: await loadPolicy(file),
    home: HOME,
    workspace: WORKSPACE,
    cache: false,
    rateLimitPerMinute: 0,
  });
}

const DEPLOY = [
  "version: 1",
  "name: mine",
  "extends: default",
  "rules:",
  "  - id: deploy-dry-run",
  "    tools: [shell__execute_command]",
  '    commands: ["deploy.sh --dry-run"]',
  "    decision: allow",
  "",
].join("\n");

describe("YAML syntax errors are reported where they are", () => {
  it.each([
    [
      "a list item without its dash",
      "version: 1\nname: t\nrules:\n  - id: a\n    decision: allow\n  - id: b\n   decision: block\n",
      /^7:1 YAML syntax error: /,
    ],
    [
      "an unclosed flow list",
      "version: 1\nname: t\nrules:\n  - id: a\n    tools: [x, y\n    decision: allow\n",
      /^6:5 YAML syntax error: /,
    ],
  ])("%s", (_name, text, re) => {
    const p = problems(text);
    expect(
      p.some((x) => re.test(x)),
      p.join("\n"),
    ).toBe(true);
    expect(
      p.some((x) => x.startsWith("1:1 ")),
      p.join("\n"),
    ).toBe(false);
  });
});

describe("extends: default", () => {
  it("adds its rules to the default policy's instead of replacing them", async () => {
    const mine = await shieldOf(DEPLOY);
    const ev = (tool: string, args: unknown) => mine.evaluateSync({ tool, args }, {}).decision;
    // its own rule
    expect(ev("shell__execute_command", sh("./deploy.sh --dry-run"))).toBe("allow");
    expect((await check("shell__execute_command", sh("./deploy.sh --dry-run"))).decision).toBe("escalate");
    // the default policy's rules and per-tool defaults still apply
    expect(ev("shell__execute_command", sh("./deploy.sh --production"))).toBe("escalate");
    expect(ev("files__read_file", { path: `${WORKSPACE}/src/a.ts` })).toBe("allow");
    expect(ev("files__write_file", { path: `${WORKSPACE}/.env`, content: "X=1" })).toBe("escalate");
    expect(ev("files__read_file", { path: "/etc/passwd" })).toBe("escalate");
    expect(ev("mail__send_email", { to: "a@b.c", subject: "s", body: "b" })).toBe("escalate");
  });

  it("without extends, a policy file replaces the default one entirely (what docs/policy.md says)", async () => {
    const alone = await shieldOf(DEPLOY.replace("extends: default\n", "defaults:\n  unknown_tool: allow\n"));
    expect(
      alone.evaluateSync({ tool: "files__write_file", args: { path: `${WORKSPACE}/.env`, content: "X=1" } }, {})
        .decision,
    ).toBe("allow");
  });

  it("a rule with the id of a default rule replaces it", async () => {
    const strictWrites = await shieldOf(
      [
        "version: 1",
        "name: ask-writes",
        "extends: default",
        "rules:",
        "  - id: write-workspace",
        "    tools: [files__write_file]",
        "    decision: ask",
        "",
      ].join("\n"),
    );
    expect((await check("files__write_file", { path: `${WORKSPACE}/src/a.ts`, content: "x" })).decision).toBe("allow");
    expect(
      strictWrites.evaluateSync(
        { tool: "files__write_file", args: { path: `${WORKSPACE}/src/a.ts`, content: "x" } },
        {},
      ).decision,
    ).toBe("escalate");
    const policy = parsePolicy(
      [
        "version: 1",
        "name: ask-writes",
        "extends: default",
        "rules:",
        "  - id: write-workspace",
        "    tools: [files__write_file]",
        "    decision: ask",
        "",
      ].join("\n"),
      "p.yaml",
    );
    expect(policy.rules.filter((r) => r.id === "write-workspace")).toHaveLength(1);
    expect(policy.extends).toBe("default");
  });

  it("names only a built-in policy, with the place of the mistake", () => {
    expect(problems("version: 1\nname: t\nextends: defualt\nrules: []\n")).toContain(
      '3:10 extends: must name a built-in policy (default, strict, permissive), got "defualt"',
    );
  });
});
