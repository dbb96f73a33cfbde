// A block reason on a path says what the call does to it, from the tool's semantics: a tool whose
// schema says it reads must not be told it "writes", and a tool that does not say what it does is
// told exactly that. Every path rule of the persistence detectors, for each effect.
import { describe, expect, it } from "vitest";
import { check, HOME } from "./helpers.js";

const schema = (pathDescription: string | undefined): unknown => ({
  type: "object",
  properties: { path: { type: "string", ...(pathDescription !== undefined ? { description: pathDescription } : {}) } },
});

// one path per persistence path rule
const PATHS = [
  "/etc/passwd",
  "/etc/cron.d/job",
  "/etc/systemd/system/x.service",
  `${HOME}/.bashrc`,
  `${HOME}/.ssh/authorized_keys`,
  `${HOME}/project/.git/hooks/pre-commit`,
  "/etc/ld.so.preload",
  "/etc/sysctl.conf",
  `${HOME}/.local/bin/ls`,
  `${HOME}/project/.vscode/tasks.json`,
];

// the effect the tool's schema gives the path, and how its reason must begin (after "persist.id: ")
const EFFECTS: { effect: string; description: string | undefined; says: RegExp }[] = [
  { effect: "write", description: "The file to write.", says: /^writes / },
  { effect: "delete", description: "The file to delete.", says: /^deletes / },
  {
    effect: "unknown",
    description: undefined,
    says: /^may write .*\(the tool does not say whether it reads or writes it\)/,
  },
];

describe("a path reason names the call's effect, from the tool's semantics", () => {
  for (const { effect, description, says } of EFFECTS) {
    for (const path of PATHS) {
      it(`${effect} of ${path}`, async () => {
        const v = await check("mcp__fs__file_tool", { path }, { toolSchema: schema(description) });
        const persist = v.reason.split("; ").find((r) => r.startsWith("persist."));
        expect(persist, v.reason).toBeDefined();
        const text = (persist ?? "").replace(/^persist\.[\w-]+: /, "");
        expect(text).toMatch(says);
        expect(text).toContain(path);
      });
    }
  }

  it("a read of /etc/passwd by an MCP tool that declares it reads is never called a write", async () => {
    const v = await check("mcp__fs__read_file", { path: "/etc/passwd" }, { toolSchema: schema("The file to read.") });
    expect(v.reason).not.toMatch(/writes|may write/);
  });
});
