// An approval says what "allow for this session" covers (the Shield's action class) and, for a
// file write, shows what it changes: a unified diff against the current file, or a new file's
// first lines; files outside the workspace (also through a symlink) are never read for it.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApprovalDecision } from "@palisade/protocol/types";
import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { createEngineShield } from "../src/adapters/shield.js";
import { defaultConfig } from "@palisade/config";
import type { ToolSpec } from "../src/ports.js";
import { FakeHost, TOOLS } from "./helpers/fake-host.js";
import { writePreview } from "../src/calls/preview.js";
import { startHarness } from "./helpers/setup.js";
import type { Harness } from "./helpers/setup.js";

const SHELL: ToolSpec = {
  name: "box__run",
  capabilityId: "box",
  description: "Run a shell command",
  policy: "ask",
  terminalOnSuccess: false,
  parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  semantics: { kind: "shell", commands: ["command"] },
};
const WRITER: ToolSpec = {
  name: "box__save",
  capabilityId: "box",
  description: "Write a file",
  policy: "ask",
  terminalOnSuccess: false,
  parameters: {
    type: "object",
    properties: { path: { type: "string" }, content: { type: "string" }, append: { type: "boolean" } },
    required: ["path", "content"],
  },
  semantics: { kind: "file-write", paths: { path: "write" }, content: ["content"] },
};

class BoxHost extends FakeHost {
  override catalog(): ToolSpec[] {
    return [...TOOLS, SHELL, WRITER];
  }
  override resolve(name: string) {
    const t = [SHELL, WRITER].find((x) => x.name === name);
    return t ? { tool: t } : super.resolve(name);
  }
}

let root: string;
let ws: string;
let h: Harness | undefined;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "pal-preview-"));
  ws = join(root, "ws");
  mkdirSync(join(ws, "docs"), { recursive: true });
  writeFileSync(join(ws, "docs", "notes.txt"), "one\ntwo\nthree\nfour\n");
  writeFileSync(join(ws, "big.txt"), Array.from({ length: 1000 }, (_, i) => `line ${i}`).join("\n"));
  writeFileSync(join(root, "secret.txt"), "outside the workspace\n");
  symlinkSync(join(root, "secret.txt"), join(ws, "link.txt"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Proposes one call and returns its ApprovalNeeded and ActionProposed, then denies it. */
async function approvalFor(tool: string, args: Record<string, unknown>) {
  h = await startHarness({
    host: new BoxHost(),
    shield: await createEngineShield(defaultConfig(), join(root, "data"), ws),
    workspace: ws,
  });
  const { client, agent } = h;
  const events: PipelineEvent[] = [];
  const done = (async () => {
    for await (const ev of client.sendMessage({ content: "go", workspace: ws })) events.push(ev);
  })();
  const p = await agent.next("process");
  await agent.propose(p.sessionId, p.messageId, "c1", tool, args);
  for (let i = 0; !events.some((e) => e.eventType === T.APPROVAL_NEEDED); i++) {
    if (i > 2000) throw new Error("no approval");
    await new Promise((r) => setTimeout(r, 5));
  }
  const approval = events.find((e) => e.eventType === T.APPROVAL_NEEDED)?.approvalNeeded;
  await client.resolveApproval({ approvalId: approval?.approvalId ?? "", decision: ApprovalDecision.DENY });
  await agent.next("toolResult");
  await agent.complete(p.sessionId, p.messageId, "done");
  await done;
  return { approval, proposed: events.find((e) => e.eventType === T.ACTION_PROPOSED)?.actionProposed };
}

describe("approval of a file write", () => {
  it("over an existing file shows a unified diff, in the approval and the proposal; `a` covers writes in that directory", async () => {
    const { approval, proposed } = await approvalFor("box__save", {
      path: "docs/notes.txt",
      content: "one\nTWO\nthree\nfour\nfive\n",
    });
    expect(approval?.preview.split("\n")).toEqual([
      "--- a/docs/notes.txt",
      "+++ b/docs/notes.txt",
      "@@ -1,4 +1,5 @@",
      " one",
      "-two",
      "+TWO",
      " three",
      " four",
      "+five",
    ]);
    expect(proposed?.preview).toBe(approval?.preview);
    expect(approval?.grantScope).toBe("box__save: paths under docs/");
  });

  it("of a new file shows its first lines", async () => {
    const { approval } = await approvalFor("box__save", { path: "docs/new.md", content: "# Title\n\nbody\n" });
    expect(approval?.preview.split("\n")).toEqual(["new file docs/new.md (3 lines)", "+# Title", "+", "+body"]);
  });

  it("appending shows the appended lines", async () => {
    const { approval } = await approvalFor("box__save", { path: "docs/notes.txt", content: "five\n", append: true });
    expect(approval?.preview).toContain("\n+five");
    expect(approval?.preview).not.toContain("-one");
  });

  it("a long diff is cut with a count of the rest", async () => {
    const { approval } = await approvalFor("box__save", { path: "big.txt", content: "replaced\n" });
    const lines = approval?.preview.split("\n") ?? [];
    expect(lines).toHaveLength(401);
    expect(lines.at(-1)).toMatch(/^… \d+ more lines$/);
  });

  it.each([
    ["outside the workspace", "../secret.txt"],
    ["through a symlink out of it", "link.txt"],
  ])("never reads a file %s", async (_what, path) => {
    const { approval } = await approvalFor("box__save", { path, content: "x" });
    expect(approval).toBeDefined();
    expect(approval?.preview).toBe("");
    expect(JSON.stringify(approval, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v))).not.toContain(
      "outside the workspace",
    );
  });

  // The same checks without the Shield in front (whatever tier it judges these paths at).
  it.each([
    ["../secret.txt", ""],
    ["link.txt", ""],
    [`${"x/".repeat(3)}new.txt`, "new file x/x/x/new.txt (1 line)\n+x"],
    ["docs", ""],
  ])("writePreview(%s)", async (path, expected) => {
    expect(await writePreview(WRITER, { path, content: "x" }, ws)).toBe(expected);
  });

  it("shows terminal controls in the file and the new content as visible escapes", async () => {
    writeFileSync(join(ws, "ctl.txt"), "a\u001b[2Jb\n");
    const p = await writePreview(WRITER, { path: "ctl.txt", content: "c\u009b31m\n" }, ws);
    // eslint-disable-next-line no-control-regex -- the preview must carry no raw control characters
    expect(p).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(p).toContain("-a\\e[2Jb");
    expect(p).toContain("+c\\x9b31m");
  });
});

describe("approval of a command", () => {
  it("says `a` covers the same program and subcommand", async () => {
    const { approval } = await approvalFor("box__run", { command: "git push origin main" });
    expect(approval?.grantScope).toBe("box__run: commands git push");
    expect(approval?.preview).toBe("");
  });
});
