import { afterEach, describe, expect, it } from "vitest";
import { SseParser, readAgentConfig } from "@palisade/agent";
import type { SseEvent } from "@palisade/agent";
import { reply } from "@palisade/testing";
import type { ScriptedServerOptions } from "@palisade/testing";
import type { FakeEngineOptions } from "./fake-engine.js";
import { startRig } from "./setup.js";
import type { Rig } from "./setup.js";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.stop();
  rig = undefined;
});

describe("SseParser", () => {
  it("joins data lines, skips comments, takes any line ending and a last event without its blank line", () => {
    const out: SseEvent[] = [];
    const p = new SseParser((e) => out.push(e));
    const text =
      ': OPENROUTER PROCESSING\r\n\r\ndata: {"a":1}\r\n\r\nevent: error\ndata: line one\ndata:line two\n\ndata: x\r\rdata: tail';
    // Fed in tiny pieces, split inside "\r\n" too.
    for (let i = 0; i < text.length; i += 3) p.feed(text.slice(i, i + 3));
    p.end();
    expect(out).toEqual([
      { event: undefined, data: '{"a":1}' },
      { event: "error", data: "line one\nline two" },
      { event: undefined, data: "x" },
      { event: undefined, data: "tail" },
    ]);
  });
});

describe("readAgentConfig: model settings from the Engine", () => {
  const env = { PALISADE_ENGINE_ADDRESS: "unix:/s", PALISADE_MODEL: "m", PALISADE_MODEL_GATEWAY: "/run/g.sock" };
  const secrets = { token: "t" };
  it("reads PALISADE_MODEL_SETTINGS over the defaults", () => {
    const c = readAgentConfig(
      {
        ...env,
        PALISADE_MODEL_SETTINGS: JSON.stringify({
          idleTimeoutMs: 5000,
          textToolCalls: "auto",
          headers: { "X-Title": "P" },
        }),
      },
      secrets,
    );
    expect(c.modelSettings).toMatchObject({
      idleTimeoutMs: 5000,
      textToolCalls: "auto",
      headers: { "X-Title": "P" },
      maxRetries: 3,
      streamUsage: "auto",
    });
  });
  it("names every bad field", () => {
    const bad = (): unknown =>
      readAgentConfig(
        {
          ...env,
          PALISADE_MODEL_SETTINGS: JSON.stringify({ idleTimeoutMs: -1, streamUsage: "always", headers: { a: 1 } }),
        },
        secrets,
      );
    for (const field of ["idleTimeoutMs", "headers", "streamUsage"])
      expect(bad).toThrow(`PALISADE_MODEL_SETTINGS.${field}`);
  });
});

describe("Agent against servers as they really are (fake Engine, scripted model, real openai SDK)", () => {
  const tools = { files__read_file: { content: "alpha" } };
  const readFile = {
    name: "files__read_file",
    description: "Read a file",
    parametersJson: '{"type":"object","properties":{"path":{"type":"string"}}}',
    group: "files",
  };
  async function start(
    model: ScriptedServerOptions,
    settings: Parameters<typeof startRig>[2] = {},
    engine: FakeEngineOptions = { tools },
  ): Promise<Rig> {
    rig = await startRig(engine, model, settings);
    return rig;
  }
  const hermes = reply.toolCalls([{ name: "files__read_file", arguments: { path: "a.txt" } }], {
    quirks: { textToolCalls: "hermes" },
  });

  it("tool calls written as text are shown as text unless text_tool_calls is auto (off by default)", async () => {
    const off = await start({ turns: [hermes] });
    const shown = await off.engine.turn({ sessionId: "s", messageId: "m1", content: "read a.txt", tools: [readFile] });
    expect(off.engine.proposals).toHaveLength(0);
    expect(shown.tokens).toContain("<tool_call>");
    await off.stop();

    const on = await start(
      { turns: [hermes, reply.text("It says alpha.")] },
      { modelSettings: { textToolCalls: "auto" } },
    );
    const out = await on.engine.turn({ sessionId: "s", messageId: "m1", content: "read a.txt", tools: [readFile] });
    expect(on.engine.proposals.map((p) => [p.toolName, JSON.parse(p.argumentsJson) as unknown])).toEqual([
      ["files__read_file", { path: "a.txt" }],
    ]);
    expect(out.tokens).toBe("It says alpha.");
    expect(out.complete?.content).toBe("It says alpha.");
  });

  it("streams reasoning deltas live as thoughts, before the answer's tokens", async () => {
    const { engine } = await start({
      turns: [reply.text("Answer.", { reasoning: "Let me think about it.", tokenDelayMs: 5 })],
    });
    const out = await engine.turn({ sessionId: "s", messageId: "m1", content: "hi" });
    const kinds = out.events.map((e) => e.event.case);
    const thoughts = out.events.flatMap((e) => (e.event.case === "thoughtEmitted" ? [e.event.value] : []));
    expect(thoughts.map((t) => t.text).join("")).toBe("Let me think about it.");
    expect(thoughts.every((t) => t.stage === "reasoning")).toBe(true);
    expect(kinds.indexOf("thoughtEmitted")).toBeLessThan(kinds.indexOf("llmTokenEmitted"));
    expect(out.tokens).toBe("Answer.");
    // The whole reasoning is also kept with the reply.
    expect(out.complete?.thoughts.find((t) => t.stage === "reasoning")?.summary).toBe("Let me think about it.");
  });

  it("sends model.headers and model.extra_body with every request, and no stream_options when stream_usage is off", async () => {
    const { engine, model } = await start(
      { turns: [reply.text("ok")] },
      {
        modelSettings: {
          headers: { "X-Title": "Palisade" },
          extraBody: { options: { num_ctx: 32768 } },
          streamUsage: "off",
        },
      },
    );
    await engine.turn({ sessionId: "s", messageId: "m1", content: "hi" });
    expect(model.requests[0]?.headers["x-title"]).toBe("Palisade");
    expect(model.chatRequests()[0]).toMatchObject({
      options: { num_ctx: 32768 },
      model: "scripted-model",
      stream: true,
    });
    expect(model.chatRequests()[0]?.stream_options).toBeUndefined();
  });

  it("max_retries bounds the attempts", async () => {
    const { engine, model } = await start(
      { fallback: reply.error(500, { errorMessage: "down" }) },
      { modelSettings: { maxRetries: 1 } },
    );
    const out = await engine.turn({ sessionId: "s", messageId: "m1", content: "hi" });
    expect(out.error?.message).toMatch(/HTTP 500: down.*gave up after 2 attempt/);
    expect(model.chatRequests()).toHaveLength(2);
  });
});
