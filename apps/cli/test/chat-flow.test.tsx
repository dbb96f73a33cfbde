import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { render } from "ink-testing-library";
import { ClientService } from "@palisade/protocol/pipeline";
import { ApprovalDecision, SessionMode } from "@palisade/protocol/types";
import { createClient } from "@palisade/protocol";
import { ChatApp } from "../src/tui/ChatApp.js";
import { ChatController } from "../src/tui/controller.js";
import type { EngineLink } from "../src/tui/controller.js";
import { initialState } from "../src/tui/state/reducer.js";
import { startFakeEngine } from "./fake/fake-engine.js";
import type { RunningFakeEngine } from "./fake/fake-engine.js";

// The deadline bounds a wait for what never comes; a loaded machine is slow, not wrong.
async function until(check: () => boolean, what: () => string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting; last frame:\n${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("the chat against a ClientService over real gRPC", () => {
  let fake: RunningFakeEngine;
  let controller: ChatController;
  let app: ReturnType<typeof render>;
  let exited = false;
  let remembered: string[] = [];

  beforeEach(async () => {
    fake = await startFakeEngine("127.0.0.1:0", { tokenDelayMs: 1 });
    const client = createClient(ClientService, fake.address);
    const link: EngineLink = { client, reconnect: async () => client, close: () => client.close() };
    exited = false;
    remembered = [];
    controller = new ChatController(
      link,
      initialState({ now: Date.now(), columns: 100, rows: 40, model: "scripted-model", connection: "connected" }),
      {
        onExit: () => (exited = true),
        clearScreen: () => undefined,
        workspace: "/tmp/ws",
        cwd: "/tmp",
        heartbeatMs: 0,
        remember: (text) => remembered.push(text),
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

  const frame = (): string => app.lastFrame() ?? "";
  const type = async (text: string): Promise<void> => {
    app.stdin.write(text);
    await new Promise((r) => setTimeout(r, 30));
  };
  const allText = (): string => app.frames.join("\n");

  it("streams a Markdown answer and shows the session in the status line", async () => {
    await type("hello");
    await type("\r");
    // React's development build renders slowly under vitest; the render benchmark measures the real speed.
    await until(
      () => controller.getState().turn === undefined && allText().includes("See the design"),
      allText,
      20_000,
    );
    expect(allText()).toContain("What I found");
    expect(allText()).toContain("• the Engine decides");
    expect(allText()).toContain("const verdict = await shield.evaluate(action);");
    expect(fake.engine.received[0]).toMatchObject({
      content: "hello",
      mode: SessionMode.NORMAL,
      workspace: "/tmp/ws",
      source: "cli",
    });
    expect(frame()).toContain("hello");
  });

  it("asks for approval; y allows once and the result card shows", async () => {
    await type("please approve rm");
    await type("\r");
    await until(() => frame().includes("Approval needed"), frame);
    expect(frame()).toContain("deleting files needs your approval");
    await type("y");
    // The controller's state changes first; ink paints it on the next frame.
    await until(
      () => controller.getState().turn === undefined && allText().includes("exit 0 · removed 2 files"),
      allText,
    );
    expect(fake.engine.approvalAnswers).toEqual([{ approvalId: "ap-1", decision: ApprovalDecision.ALLOW_ONCE }]);
    expect(allText()).toContain("approval: allowed once");
    expect(allText()).toContain("exit 0 · removed 2 files");
    expect(frame()).not.toContain("Approval needed");
  });

  it("r denies with a typed reason, sent with the answer", async () => {
    await type("approve this");
    await type("\r");
    await until(() => frame().includes("Approval needed"), frame);
    await type("r");
    await type("use the staging copy");
    await until(() => frame().includes("why deny? use the staging copy"), frame);
    await type("\r");
    await until(
      () => fake.engine.approvalAnswers.length === 1,
      () => JSON.stringify(fake.engine.approvalAnswers),
    );
    expect(fake.engine.approvalAnswers[0]).toEqual({
      approvalId: "ap-1",
      decision: ApprovalDecision.DENY,
      reason: "use the staging copy",
    });
  });

  it("n denies and the model is told", async () => {
    await type("approve this");
    await type("\r");
    await until(() => frame().includes("Approval needed"), frame);
    await type("n");
    await until(() => controller.getState().turn === undefined && allText().includes("left build/ alone"), allText);
    expect(fake.engine.approvalAnswers[0]?.decision).toBe(ApprovalDecision.DENY);
    expect(allText(), allText()).toContain("left build/ alone");
  });

  it("Esc cancels a slow turn", async () => {
    await type("be slow");
    await type("\r");
    await until(() => allText().includes("word2"), allText);
    await type("\x1b");
    await until(() => controller.getState().turn === undefined && allText().includes("turn cancelled"), allText, 8000);
    expect(allText()).toContain("turn cancelled");
  });

  it("/sessions lists the conversation; Enter opens it and r resumes it", async () => {
    fake.engine.seed("Trip to Lisbon", [
      { role: "user", content: "plan a trip to Lisbon" },
      { role: "assistant", content: "Day 1: **Alfama**." },
    ]);
    await type("/sessions");
    await type("\r");
    await until(() => frame().includes("Trip to Lisbon"), frame);
    await type("\r");
    await until(() => frame().includes("Day 1: Alfama."), frame);
    await type("r");
    await until(() => controller.getState().sessionTitle === "Trip to Lisbon", frame);
    await type("and day 2?");
    await type("\r");
    await until(() => controller.getState().turn === undefined && fake.engine.received.length === 1, allText);
    expect(fake.engine.received[0]?.sessionId).toBe([...fake.engine.sessions.keys()][0]);
  });

  it("typing in /sessions searches (debounced SearchSessions), shows hits by session, Enter opens the transcript at the hit", async () => {
    fake.engine.seed("Trip to Lisbon", [
      { role: "user", content: "plan a trip to Lisbon" },
      { role: "assistant", content: "Day 1: **Alfama** and the castle." },
      { role: "user", content: "more about Alfama please" },
      { role: "assistant", content: "Alfama is the oldest district." },
      // more than a screen after the hit: the transcript must scroll to it
      ...Array.from({ length: 40 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `filler ${i}` })),
    ]);
    fake.engine.seed("Taxes", [{ role: "user", content: "what is the tax rate?" }]);
    await type("/sessions");
    await type("\r");
    await until(() => frame().includes("Taxes") && frame().includes("Trip to Lisbon"), frame);
    for (const ch of "alfama") {
      app.stdin.write(ch);
      await new Promise((r) => setTimeout(r, 15));
    }
    await until(() => frame().includes("3 hits"), frame);
    expect(fake.engine.searches).toEqual(["alfama"]);
    expect(frame()).not.toContain("Taxes");
    expect(frame().match(/Trip to Lisbon/g)).toHaveLength(1);
    expect(frame()).toMatch(/Day 1: \*\*Alfama[\s\S]*more about Alfama[\s\S]*Alfama is the oldest/);
    app.stdin.write("\u001B[B"); // ↓ to the second hit
    await until(() => (controller.getState().overlay as { selected?: number } | undefined)?.selected === 1, frame);
    await type("\r");
    // the search hits show the same words: wait for the loaded transcript itself
    await until(() => {
      const t = controller.getState().overlay;
      return (
        t?.kind === "transcript" &&
        !t.loading &&
        t.messages.length > 0 &&
        frame().includes("Transcript ·") &&
        frame().includes("more about Alfama please")
      );
    }, frame);
    const o = controller.getState().overlay as { top: number; offset: number; messages: { id: string }[] };
    expect(o.messages[o.top]).toMatchObject({ content: "more about Alfama please" });
    expect(o.offset).toBe(0);
    expect(frame()).not.toContain("filler 39");
  });

  it("a blocked call shows the Shield's reason", async () => {
    await type("block me");
    await type("\r");
    await until(() => controller.getState().turn === undefined && allText().includes("shield BLOCK"), allText);
    expect(allText()).toContain("shield BLOCK · tier 1 · downloads piped into a shell are never allowed");
  });

  it("an ERROR event is shown once, with a one-line banner pointing at it", async () => {
    await type("fail now");
    await type("\r");
    await until(() => frame().includes("✗ the turn failed"), frame);
    const st = controller.getState();
    const shown = [...st.committed, ...st.live].map((e) => ("text" in e ? e.text : "")).concat(st.banner?.text ?? "");
    expect(shown.filter((t) => t.includes("the model server answered 503 three times"))).toHaveLength(1);
    expect(frame()).toMatch(/✗ the turn failed \(\w+\): see the message above/);
  });

  it("a background sub-agent's line updates to finished, with its duration, when it ends between turns", async () => {
    // A chat that checks on the Engine every 100 ms (the real one: every few seconds).
    const client = createClient(ClientService, fake.address);
    const polling = new ChatController(
      { client, reconnect: async () => client, close: () => client.close() },
      initialState({ now: Date.now(), columns: 100, rows: 40, model: "m", connection: "connected" }),
      {
        onExit: () => undefined,
        clearScreen: () => undefined,
        workspace: "/tmp/ws",
        cwd: "/tmp",
        heartbeatMs: 100,
      },
    );
    const view = render(<ChatApp controller={polling} />);
    polling.start();
    try {
      view.stdin.write("start a background job\r");
      await until(
        () => polling.getState().turn === undefined && (view.lastFrame() ?? "").includes("◆ bea running"),
        () => view.lastFrame() ?? "",
      );
      fake.engine.subAgents = [
        {
          name: "bea",
          task: "index the docs",
          state: "completed",
          llmCalls: 3,
          toolCalls: 2,
          elapsedMs: 4200n,
          resultExcerpt: "indexed 12 files",
          error: "",
        } as never,
      ];
      await until(
        () => (view.lastFrame() ?? "").includes("◇ bea completed · 3 llm · 2 tools · 4.2 s"),
        () => view.lastFrame() ?? "",
      );
      expect(view.lastFrame()).not.toContain("bea running");
      expect(
        polling
          .getState()
          .committed.some(
            (x) => x.kind === "notice" && x.text === "sub-agent bea completed after 4.2 s: indexed 12 files",
          ),
      ).toBe(true);
    } finally {
      view.unmount();
      polling.close();
    }
  });

  it("/search finds a stored message", async () => {
    fake.engine.seed("Taxes", [{ role: "user", content: "what is the VAT rate in Portugal" }]);
    await type("/search vat");
    await type("\r");
    await until(() => frame().includes("· 1 hit"), frame);
    expect(frame()).toContain("Taxes · user");
  });

  it("input history keeps sent messages but never off-the-record ones", async () => {
    await type("hello");
    await type("\r");
    await until(
      () => controller.getState().turn === undefined && allText().includes("See the design"),
      allText,
      20_000,
    );
    await type("/otr");
    await type("\r");
    await type("a secret");
    await type("\r");
    await until(() => fake.engine.received.length === 2 && controller.getState().turn === undefined, allText, 20_000);
    expect(fake.engine.received[1]?.mode).toBe(SessionMode.OTR);
    expect(remembered).toEqual(["hello"]);
  });

  it("an off-the-record session is ended (deleted in the Engine) when the chat leaves it and when the chat closes", async () => {
    await type("/otr");
    await type("\r");
    await type("first secret");
    await type("\r");
    await until(
      () => controller.getState().turn === undefined && controller.getState().sessionId !== undefined,
      allText,
      20_000,
    );
    const first = controller.getState().sessionId as string;
    expect(fake.engine.deletions).toEqual([]);
    // /otr leaves it (back on the record); /otr again starts another one.
    await type("/otr");
    await type("\r");
    await until(() => fake.engine.deletions.length === 1, allText);
    expect(fake.engine.deletions).toEqual([first]);
    await type("/otr");
    await type("\r");
    await type("second secret");
    await type("\r");
    await until(
      () => controller.getState().turn === undefined && controller.getState().sessionId !== undefined,
      allText,
      20_000,
    );
    const second = controller.getState().sessionId as string;
    expect(second).not.toBe(first);
    await controller.endOffTheRecord();
    expect(fake.engine.deletions).toEqual([first, second]);
  });

  it("Tab completes a command and /quit leaves", async () => {
    await type("/qu");
    await type("\t");
    expect(controller.getState().editor.text).toBe("/quit ");
    await type("\r");
    await until(() => exited, frame);
  });
});
