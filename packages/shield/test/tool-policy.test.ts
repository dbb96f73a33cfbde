import { describe, expect, it } from "vitest";
import { createShield, loadPolicy, parsePolicy, toolPolicy } from "@palisade/shield";

describe("toolPolicy: what the active policy says about a tool", () => {
  it("default policy: a write asks unless a rule matches its path, and names those rules", async () => {
    const policy = await loadPolicy("default");
    const p = toolPolicy(policy, "files__write_file", { manifestPolicy: "ask", kind: "file-write" });
    expect(p.decision).toBe("escalate");
    expect(p.rules.map((r) => [r.id, r.decision])).toEqual([
      ["files-outside-workspace", "escalate"],
      ["workspace-sensitive-files", "escalate"],
      ["write-workspace", "allow"],
    ]);
    expect(p.rules.find((r) => r.id === "write-workspace")?.description).toBe(
      "Creating and editing files inside the workspace.",
    );
    // the off-the-record rule is not part of a normal session's picture
    expect(p.rules.some((r) => r.id === "otr-no-persistent-changes")).toBe(false);
    expect(
      toolPolicy(policy, "files__write_file", { manifestPolicy: "ask", kind: "file-write", mode: "otr" }).decision,
    ).toBe("escalate");
    expect(
      toolPolicy(policy, "files__write_file", { manifestPolicy: "ask", kind: "file-write", mode: "otr" }).source,
    ).toBe("rule:otr-no-persistent-changes");
  });

  it("an unconditional rule of the policy wins over the manifest's recommendation, as evaluation does", () => {
    const policy = parsePolicy(
      [
        "version: 1",
        "name: t",
        "rules:",
        "  - id: no-shell",
        "    tools: [shell__*]",
        "    decision: block",
        "  - id: mail-ok",
        "    tools: [mail__send]",
        "    decision: allow",
      ].join("\n"),
      "t.yaml",
    );
    expect(toolPolicy(policy, "shell__execute_command", { manifestPolicy: "ask" })).toEqual({
      decision: "block",
      source: "rule:no-shell",
      rules: [],
    });
    expect(toolPolicy(policy, "mail__send", { manifestPolicy: "ask" }).decision).toBe("allow");
    // and the Shield's verdict for any call of those tools agrees
    const shield = createShield({ policy, cache: false, rateLimitPerMinute: 0 });
    expect(
      shield.evaluateSync({ tool: "shell__execute_command", args: { command: "ls" } }, { manifestPolicy: "ask" })
        .decision,
    ).toBe("block");
    expect(shield.evaluateSync({ tool: "mail__send", args: {} }, { manifestPolicy: "ask" }).decision).toBe("allow");
  });

  it("a manifest that says block is block; without rules and manifest the tool default, else the unknown-tool default", async () => {
    const policy = await loadPolicy("default");
    expect(toolPolicy(policy, "files__read_file", { manifestPolicy: "block" })).toEqual({
      decision: "block",
      source: "manifest",
      rules: [],
    });
    expect(toolPolicy(policy, "mail__send_email")).toMatchObject({
      decision: "escalate",
      source: "default:mail__send_email",
    });
    expect(toolPolicy(policy, "someone__else")).toMatchObject({ decision: policy.unknownTool, source: "unknown-tool" });
  });
});
