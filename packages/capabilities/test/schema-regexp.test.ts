import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { argumentProblems } from "@palisade/capabilities";

// A tool's schema is a capability's (or an MCP server's), the argument the model's: a backtracking
// engine would spin on `^(a+)+$` against "aaaa…a!" for longer than the universe lasts. The check
// runs in a child process with a deadline, so a regression fails the test instead of hanging it.
const capabilitiesDist = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const engineValidate = fileURLToPath(new URL("../../engine/dist/calls/validate.js", import.meta.url));
const evil = { type: "object", properties: { name: { type: "string", pattern: "^(a+)+$" } } };
const evilArgs = { name: `${"a".repeat(5000)}!` };

function inChild(script: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("schema patterns run in linear time", () => {
  it("the catalog's argument check answers on a catastrophic pattern (the call is refused, the process is not held)", () => {
    const r = inChild(`import { argumentProblems } from ${JSON.stringify(capabilitiesDist)};
      console.log(JSON.stringify(argumentProblems("t", ${JSON.stringify(evil)}, ${JSON.stringify(evilArgs)})));`);
    expect(r.status, `the check did not finish (killed after 20 s): ${r.stderr}`).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      't: arguments.name: must match pattern "^(a+)+$", got "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…"',
    ]);
  });

  it("the Engine's argument validator answers on a catastrophic pattern", () => {
    const r = inChild(`import { ArgumentValidator } from ${JSON.stringify(engineValidate)};
      console.log(JSON.stringify(new ArgumentValidator().validate("t", ${JSON.stringify(evil)}, ${JSON.stringify(evilArgs)}) ?? null));`);
    expect(r.status, `the check did not finish (killed after 20 s): ${r.stderr}`).toBe(0);
    expect(JSON.parse(r.stdout)).toBe(
      't: arguments.name: must match pattern "^(a+)+$", got "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…"',
    );
  });

  it("each pattern of a schema is its own (patterns, patternProperties), and matches as JSON Schema says (anywhere in the string)", () => {
    const schema = {
      type: "object",
      properties: { id: { type: "string", pattern: "^[a-z]+-\\d+$" }, tag: { type: "string", pattern: "x" } },
      patternProperties: { "^env_": { type: "string", pattern: "^[A-Z]+$" } },
    };
    expect(argumentProblems("t", schema, { id: "ab-12", tag: "axb", env_HOME: "ABC" })).toEqual([]);
    expect(argumentProblems("t", schema, { id: "AB-12", tag: "y", env_HOME: "abc" }).sort()).toEqual([
      't: arguments.env_HOME: must match pattern "^[A-Z]+$", got "abc"',
      't: arguments.id: must match pattern "^[a-z]+-\\d+$", got "AB-12"',
      't: arguments.tag: must match pattern "x", got "y"',
    ]);
  });

  it("a pattern RE2 cannot run (lookahead, backreference) does not make the tool unusable: the capability checks it", () => {
    const schema = {
      type: "object",
      properties: { pw: { type: "string", pattern: "^(?=.*\\d).{8,}$" }, rep: { type: "string", pattern: "(a)\\1" } },
    };
    expect(argumentProblems("t", schema, { pw: "short", rep: "ab" })).toEqual([]);
  });
});
