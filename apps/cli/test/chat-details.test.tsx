import { create } from "@bufbuild/protobuf";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@palisade/protocol";
import { ClientService, StatusResponseSchema } from "@palisade/protocol/pipeline";
import { ChatMessageSchema } from "@palisade/protocol/types";
import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import { waitFor } from "@palisade/testing";
import { EventFactory } from "./fake/events.js";
import { startFakeEngine } from "./fake/fake-engine.js";
import { enter, esc, ev, fresh, run, sent, type } from "./state.js";
import { statusLines } from "../src/format/status.js";
import { messagesToEntries } from "../src/tui/state/history.js";
import { ToolCard } from "../src/tui/components/ToolCard.js";
import { Banner } from "../src/tui/components/Banner.js";
import type { ToolCardEntry } from "../src/tui/state/types.js";
import { ChatApp } from "../src/tui/ChatApp.js";
import { ChatController } from "../src/tui/controller.js";
import { initialState } from "../src/tui/state/reducer.js";

const f = () => new EventFactory("s-1", "m-1");

describe("what the chat says", () => {
  it("/restart: the Engine's new setup is printed once", () => {
    const asked = run(fresh(), [...type("/restart"), enter]).state;
    const after = run(asked, [{ type: "engineRestarted", summary: "Engine restarted: pid 42, model m2" }]).state;
    const shown = [...after.committed.map((e) => ("text" in e ? e.text : "")), after.banner?.text ?? ""];
    expect(shown.filter((t) => t.includes("Engine restarted: pid 42"))).toHaveLength(1);
  });

  it("once the turn is cancelled, “cancelling…” is gone", () => {
    const e = f();
    const cancelling = run(sent().state, [ev(e.accepted()), esc]).state;
    expect(cancelling.banner?.text).toBe("cancelling…");
    const done = run(cancelling, [ev(e.cancelled())]).state;
    expect(done.committed.at(-1)).toMatchObject({ kind: "notice", text: expect.stringContaining("turn cancelled") });
    expect(done.banner).toBeUndefined();
  });

  it("/resume without an id opens the sessions list to pick from", () => {
    const r = run(fresh(), [...type("/resume"), enter]);
    expect(r.state.overlay).toMatchObject({ kind: "sessions", filter: "", loading: true });
    expect(r.effects).toEqual([{ type: "listSessions", filter: "", offset: 0 }]);
    expect(r.state.banner).toBeUndefined();
  });

  it("Enter with nothing typed during a turn says a turn is running and what to do", () => {
    const r = run(sent().state, [enter]);
    expect(r.effects).toEqual([]);
    expect(r.state.banner?.text).toBe("a turn is running: Esc cancels it; meanwhile you can type your next message");
  });

  it("what Enter during a turn says fits whole on an 80-column line", () => {
    const empty = run(sent().state, [enter]).state;
    const typed = run(sent().state, [...type("next"), enter]).state;
    for (const st of [empty, typed]) {
      const banner = st.banner;
      expect(banner?.text).toContain("a turn is running");
      expect(banner?.text).toMatch(/Esc/);
      const line = render(<Banner banner={banner ?? { level: "info", text: "" }} width={80} />).lastFrame() ?? "";
      expect(line).toContain(banner?.text ?? "?");
      expect(line).not.toContain("…");
    }
    expect(typed.banner?.text).toContain("your text is kept");
    expect(typed.editor.text).toBe("next");
  });

  it("a resumed tool card says how it was approved in words, never the stored enum name", () => {
    const stored = (approval: string) =>
      create(ChatMessageSchema, {
        id: `m-${approval}`,
        role: "assistant",
        content: "",
        toolCalls: [
          { callId: `c-${approval}`, toolName: "shell__execute_command", argumentsJson: "{}", approval, result: "ok" },
        ],
      });
    const cards = messagesToEntries(
      ["allow_once", "allow_session", "deny", "session", "unattended"].map(stored),
    ) as ToolCardEntry[];
    const text = cards.map((c) => render(<ToolCard card={c} width={120} />).lastFrame() ?? "");
    expect(text[0]).toContain("approval: allowed once");
    expect(text[1]).toContain("approval: allowed for this session");
    expect(text[2]).toContain("approval: denied");
    expect(text[3]).toContain("approval: allowed once (covered by an earlier approval for this session)");
    expect(text[4]).toContain("approval: denied (nobody was there to answer)");
    for (const t of text) expect(t).not.toMatch(/allow_once|allow_session|\(deny\)|\(session\)|\(unattended\)/);
  });

  it("/status does not call a config file that is not there “unchanged”", () => {
    const status = create(StatusResponseSchema, {
      configFile: "/home/u/.config/palisade/config.yaml",
      configChanged: false,
    });
    expect(statusLines(status, false)).toContain(
      "Config    /home/u/.config/palisade/config.yaml · does not exist (the Engine runs with its built-in defaults and the environment)",
    );
    expect(statusLines(status, true)).toContain(
      "Config    /home/u/.config/palisade/config.yaml · unchanged since the Engine started",
    );
  });
});

describe("/status over real gRPC: a config file that does not exist", () => {
  it("is never called “unchanged”, whichever status reaches the panel first", async () => {
    const missing = join(mkdtempSync(join(tmpdir(), "pstatus-")), "config.yaml");
    const fake = await startFakeEngine("127.0.0.1:0", { configFile: missing });
    const real = createClient(ClientService, fake.address);
    // The panel's own request (its 5 s deadline tells it from the heartbeat's 2.5 s) answers late,
    // so a heartbeat's status reaches the open panel first.
    let panelAsked = 0;
    let panelAnswered = 0;
    const client: typeof real = {
      ...real,
      getStatus: async (req, opts) => {
        if (opts?.timeoutMs === 5000) {
          panelAsked++;
          await new Promise((r) => setTimeout(r, 1500));
        }
        const status = await real.getStatus(req, opts);
        if (opts?.timeoutMs === 5000) panelAnswered++;
        return status;
      },
    };
    const controller = new ChatController(
      { client, reconnect: async () => client, close: () => client.close() },
      initialState({ now: Date.now(), columns: 120, rows: 40, model: "scripted-model", connection: "connected" }),
      { onExit: () => undefined, clearScreen: () => undefined, workspace: "/tmp/ws", cwd: "/tmp", heartbeatMs: 100 },
    );
    const app = render(<ChatApp controller={controller} />);
    try {
      controller.start();
      await waitFor(() => fake.engine.statusCalls >= 1, { message: "the chat's heartbeat runs" });
      for (const action of [...type("/status"), enter]) controller.dispatch(action);
      const panelStatus = () => {
        const o = controller.getState().overlay;
        return o?.kind === "status" ? o.status : undefined;
      };
      await waitFor(() => panelStatus() !== undefined, {
        message: "a status reaches the panel",
      });
      expect([panelAsked, panelAnswered], "the panel asked; a heartbeat's status came first").toEqual([1, 0]);
      await waitFor(() => panelAnswered === 1, { message: "the panel's own status arrives" });
      await waitFor(() => (app.lastFrame() ?? "").includes("Config "), {
        message: `the panel shows the config line; last frame:\n${app.lastFrame() ?? ""}`,
      });
      const frames = app.frames.join("\n");
      expect(frames).toContain(`Config    ${missing} · does not exist (the Engine runs with its built-in defaults`);
      expect(frames).not.toContain("unchanged since the Engine started");
    } finally {
      app.unmount();
      controller.close();
      await fake.close();
    }
  });
});
