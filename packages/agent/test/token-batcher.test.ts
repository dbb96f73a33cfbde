import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { AgentRuntime, TokenBatcher } from "@palisade/agent";
import type { AgentEventInit, CallModel } from "@palisade/agent";
import { EngineDirectiveSchema } from "@palisade/protocol/pipeline";
import { waitFor } from "@palisade/testing";

const nextTurnOfLoop = (): Promise<void> => new Promise((r) => setImmediate(r));

describe("TokenBatcher: one event per burst of tokens", () => {
  it("sends the first token of a burst at once and joins the rest when the event loop turns", async () => {
    const sent: string[] = [];
    const b = new TokenBatcher((t) => sent.push(t));
    b.push("Hello");
    expect(sent).toEqual(["Hello"]);
    b.push(" from");
    b.push(" the");
    expect(sent).toEqual(["Hello"]);
    await nextTurnOfLoop();
    expect(sent).toEqual(["Hello", " from the"]);
    // A token after the burst is a new burst: it leaves at once.
    b.push(" model");
    expect(sent).toEqual(["Hello", " from the", " model"]);
    await nextTurnOfLoop();
    expect(sent).toEqual(["Hello", " from the", " model"]);
  });

  it("flush() sends what is pending, so another event never overtakes a token", async () => {
    const sent: string[] = [];
    const b = new TokenBatcher((t) => sent.push(t));
    b.push("a");
    b.push("b");
    b.flush();
    sent.push("<tool proposal>");
    b.push("c");
    await nextTurnOfLoop();
    expect(sent).toEqual(["a", "b", "<tool proposal>", "c"]);
    b.flush();
    expect(sent).toEqual(["a", "b", "<tool proposal>", "c"]);
  });
});

describe("AgentRuntime streams bursts as joined tokens, in order", () => {
  it("a model delivering four chunks in one read gives one token event, then the reply carrying the rest", async () => {
    const events: AgentEventInit[] = [];
    const callModel: CallModel = (req) => {
      for (const t of ["Hello", " from", " the", " model"]) req.onToken?.(t);
      return Promise.resolve({
        content: "Hello from the model",
        reasoning: "",
        toolCalls: [],
        finishReason: "stop",
        usage: { inputTokens: 1, outputTokens: 4, cacheReadTokens: 0 },
      });
    };
    const rt = new AgentRuntime({
      model: "m",
      contextWindow: 128_000,
      callModel,
      send: (e) => events.push(e),
      log: () => undefined,
    });
    rt.handle(create(EngineDirectiveSchema, { directive: { case: "initialToolDefs", value: {} } }));
    rt.handle(
      create(EngineDirectiveSchema, {
        directive: { case: "process", value: { sessionId: "s", messageId: "m", content: "hi" } },
      }),
    );
    await waitFor(() => events.some((e) => e.event?.case === "responseComplete" || e.event?.case === "agentError"));
    const seen = events.map((e) =>
      e.event?.case === "llmTokenEmitted"
        ? `token:${String(e.event.value?.text)}`
        : e.event?.case === "responseComplete"
          ? `responseComplete:${String(e.event.value?.lastText)}`
          : String(e.event?.case),
    );
    expect(seen).toEqual(["token:Hello", "responseComplete: from the model"]);
  });
});
