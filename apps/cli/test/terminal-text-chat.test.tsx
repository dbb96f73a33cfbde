// The chat draws what the model, a tool or the Engine sends with terminal controls made visible
// (the controller sanitizes what arrives), and the approval dialog shows the whole call, wrapped.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { render } from "ink-testing-library";
import { ClientService } from "@palisade/protocol/pipeline";
import { createClient } from "@palisade/protocol";
import { ApprovalDialog } from "../src/tui/components/ApprovalDialog.js";
import { ChatApp } from "../src/tui/ChatApp.js";
import { ChatController } from "../src/tui/controller.js";
import type { EngineLink } from "../src/tui/controller.js";
import { initialState } from "../src/tui/state/reducer.js";
import { startFakeEngine } from "./fake/fake-engine.js";
import type { RunningFakeEngine } from "./fake/fake-engine.js";
import { T0 } from "./state.js";

async function until(check: () => boolean, what: () => string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting; frames:\n${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("the chat shows terminal controls from the Engine as visible escapes", () => {
  let fake: RunningFakeEngine;
  let controller: ChatController;
  let app: ReturnType<typeof render>;
  beforeEach(async () => {
    fake = await startFakeEngine("127.0.0.1:0", { tokenDelayMs: 1 });
    const client = createClient(ClientService, fake.address);
    const link: EngineLink = { client, reconnect: async () => client, close: () => client.close() };
    controller = new ChatController(
      link,
      initialState({ now: Date.now(), columns: 100, rows: 40, model: "scripted-model", connection: "connected" }),
      {
        onExit: () => undefined,
        clearScreen: () => undefined,
        workspace: "/tmp/ws",
        cwd: "/tmp",
        heartbeatMs: 0,
        remember: () => undefined,
      },
    );
    app = render(<ChatApp controller={controller} />);
    controller.start();
  });
  afterEach(async () => {
    app.unmount();
    controller.close();
    await fake.close();
  });

  it("no OSC 52, cursor movement, erase-line, colour, C1 or bidi from the model or the tool reaches the frames", async () => {
    app.stdin.write("show escapes");
    await new Promise((r) => setTimeout(r, 30));
    app.stdin.write("\r");
    const all = (): string => app.frames.join("\n");
    await until(() => controller.getState().turn === undefined && all().includes("Done."), all);
    const frames = all();
    for (const raw of [
      "\u001b]52;",
      "\u0007",
      "\u001b[1A",
      "\u001b[2K",
      "\u001b[8m",
      "\u001b[32m✓ everything passed",
      "\u001b[32mall tests passed",
      "\u009b",
      "\u202e",
    ]) {
      expect(frames.includes(raw), JSON.stringify(raw)).toBe(false);
    }
    expect(frames).toContain("\\e]52;c;Y3VybCBldmlsIHwgc2g=\\x07");
    expect(frames).toContain("\\e[32m✓");
    expect(frames).toContain("\\u202eevil");
    expect(frames).toContain("\\e[32mall tests passed");
  });

  it("a stored session's title and transcript (the session list, a resumed conversation) too", async () => {
    fake.engine.seed("Trip\u001b]52;c;ZXZpbA==\u0007 to Lisbon", [
      { role: "user", content: "plan a trip" },
      { role: "assistant", content: "Day 1\u001b[1A\u001b[2K\u001b[32m✓ booked\u001b[0m \u202eevil" },
    ]);
    const type = async (text: string): Promise<void> => {
      app.stdin.write(text);
      await new Promise((r) => setTimeout(r, 30));
    };
    const all = (): string => app.frames.join("\n");
    await type("/sessions");
    await type("\r");
    await until(() => all().includes("to Lisbon"), all);
    await type("\r");
    await until(() => all().includes("booked"), all);
    for (const raw of ["\u001b]52;", "\u0007", "\u001b[1A", "\u001b[2K", "\u001b[32m✓ booked", "\u202e"]) {
      expect(all().includes(raw), JSON.stringify(raw)).toBe(false);
    }
    expect(all()).toContain("\\e[32m✓ booked");
  });
});

describe("the approval dialog", () => {
  it("shows a one-line command whole, wrapped at the dialog's width, not cut", () => {
    const command =
      "npm run lint -- --fix --max-warnings 0 --cache --cache-location .eslintcache && npm publish --access public";
    const approval = {
      approvalId: "ap1",
      sessionId: "s",
      callId: "c1",
      toolName: "shell__execute_command",
      argumentsJson: JSON.stringify({ command }),
      reason: "publishing needs your approval",
      tier: 0,
      ruleIds: [],
      deadlineMs: T0 + 60_000,
      grantScope: "shell__execute_command: commands npm run, npm publish",
      preview: "",
    };
    const r = render(<ApprovalDialog approval={approval} queued={0} now={T0} width={60} />);
    const out = r.lastFrame() ?? "";
    r.unmount();
    for (const l of out.split("\n")) expect([...l].length).toBeLessThanOrEqual(60);
    // the dialog's lines without the border, joined: the whole command is there
    const text = out
      .split("\n")
      .map((l) =>
        l
          .replace(/^[║│]\s?/, "")
          .replace(/\s*[║│]$/, "")
          .trim(),
      )
      .join(" ");
    expect(text).toContain("npm publish --access public");
    expect(text.replace(/\s+/g, " ")).toContain(command);
  });

  it("shows every argument of a call with many, no line cut off", () => {
    const args = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`opt${i}`, `value ${i}`]));
    const approval = {
      approvalId: "ap2",
      sessionId: "s",
      callId: "c2",
      toolName: "acme__deploy",
      argumentsJson: JSON.stringify({ ...args, target: "production" }),
      reason: "deploying needs your approval",
      tier: 0,
      ruleIds: [],
      deadlineMs: T0 + 60_000,
      grantScope: "",
      preview: "",
    };
    const r = render(<ApprovalDialog approval={approval} queued={0} now={T0} width={80} />);
    const out = r.lastFrame() ?? "";
    r.unmount();
    for (let i = 0; i < 20; i++) expect(out).toContain(`"opt${i}": "value ${i}"`);
    expect(out).toContain('"target": "production"');
    expect(out).not.toContain("more lines");
  });
});
