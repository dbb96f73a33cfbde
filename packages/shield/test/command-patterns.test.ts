// Command patterns: in an allow rule `*` stays within one argument, `**` is any further arguments,
// `word...` one or more arguments each matching the word, `{a,b}` alternatives. Ask and block rules
// keep `*` spanning arguments, so a narrower reading never lets through what they meant to stop.
import { PolicyError, createShield, parsePolicy } from "@palisade/shield";
import { describe, expect, it } from "vitest";
import { HOME, WORKSPACE, check, sh } from "./helpers.js";

function shieldWith(rules: string) {
  return createShield({
    policy: parsePolicy(`version: 1\nname: t\nrules:\n${rules}`, "t.yaml"),
    home: HOME,
    workspace: WORKSPACE,
    cache: false,
    rateLimitPerMinute: 0,
  });
}

const run = (s: ReturnType<typeof shieldWith>, command: string): string[] =>
  s.evaluateSync({ tool: "shell__execute_command", args: { command } }).rules;

describe("default policy: deleting build output", () => {
  it.each([
    "rm -rf dist coverage",
    "rm -rf dist",
    "rm -rf packages/app/dist build/",
    "rm -f dist/a.js build/b.js",
    "rm -f coverage/lcov.info",
  ])("%s runs (every argument is build output)", async (command) => {
    expect((await check("shell__execute_command", sh(command))).decision).toBe("allow");
  });

  it.each([
    "rm -f coverage/x src/main.ts",
    "rm -rf dist src",
    "rm -rf coverage README.md",
    "rm -f dist/x.js package.json",
    "rm -f coverage/../src/main.ts",
    "rm -rf dist/../src",
    "rm -f distx/a.js",
  ])("%s asks (an argument is not build output)", async (command) => {
    expect((await check("shell__execute_command", sh(command))).decision).toBe("escalate");
  });
});

describe("command pattern syntax", () => {
  const allow = shieldWith(`  - id: a
    decision: allow
    commands: ["rm -f out/*", "git commit **", "touch {a,b}.txt...", "ps*", "npx tsc*", "kill %?"]
`);

  it("* matches within one argument in an allow rule", () => {
    expect(run(allow, "rm -f out/x")).toEqual(["a"]);
    expect(run(allow, "rm -f out/x out/y")).not.toContain("a");
    expect(run(allow, "rm -f out/x src/y")).not.toContain("a");
    expect(run(allow, "rm -f 'out/x src/y'")).toEqual(["a"]);
  });

  it("a wildcard never matches an argument with a .. segment", () => {
    expect(run(allow, "rm -f out/../src/main.ts")).not.toContain("a");
    expect(run(allow, "rm -f out/..")).not.toContain("a");
    expect(run(allow, "rm -f out/..x")).toEqual(["a"]);
  });

  it("** is any number of further arguments, quoted arguments stay one", () => {
    expect(run(allow, "git commit")).toEqual(["a"]);
    expect(run(allow, "git commit -m 'fix the bug' --no-verify")).toEqual(["a"]);
    expect(run(allow, "git push")).not.toContain("a");
  });

  it("word... is one or more arguments each matching the word; {a,b} alternatives", () => {
    expect(run(allow, "touch a.txt")).toEqual(["a"]);
    expect(run(allow, "touch a.txt b.txt a.txt")).toEqual(["a"]);
    expect(run(allow, "touch a.txt c.txt")).not.toContain("a");
    expect(run(allow, "touch")).not.toContain("a");
  });

  it("a * glued to the program word means then any arguments; ? is one character", () => {
    expect(run(allow, "ps aux")).toEqual(["a"]);
    expect(run(allow, "psql -c 'select 1'")).not.toContain("a");
    expect(run(allow, "npx tsc -b --force")).toEqual(["a"]);
    expect(run(allow, "kill %1")).toEqual(["a"]);
    expect(run(allow, "kill %12")).not.toContain("a");
  });

  it("in ask and block rules * still spans arguments", () => {
    const stop = shieldWith(`  - id: pushes
    decision: block
    commands: ["git * push", "rm -f out/*"]
  - id: rest
    decision: allow
`);
    expect(run(stop, "git -c core.x=y push")).toContain("pushes");
    expect(run(stop, "rm -f out/x src/y")).toContain("pushes");
    expect(run(stop, "git pull")).not.toContain("pushes");
  });

  it.each([
    ["rm {a,b", /unbalanced \{ \}/],
    ["rm {a,{b,c}}", /nested/],
    ["rm a}", /unbalanced/],
    ["rm ...", /repeats the word before it/],
  ])("a bad pattern %s is refused with what to write", (pattern, message) => {
    let err: unknown;
    try {
      parsePolicy(
        `version: 1\nname: t\nrules:\n  - id: a\n    decision: allow\n    commands: ["${pattern}"]\n`,
        "t.yaml",
      );
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PolicyError);
    expect((err as PolicyError).problems.map((p) => p.message).join("\n")).toMatch(message);
  });
});
