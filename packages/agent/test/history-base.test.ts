// The Agent keeps each conversation between turns and uses its copy only for the exact base a
// ProcessRequest names; otherwise it asks for the whole conversation and does not start the turn.
import { afterEach, describe, expect, it } from "vitest";
import { chainHistoryDigest } from "@palisade/protocol";
import { reply, waitFor } from "@palisade/testing";
import { startRig } from "./setup.js";
import type { Rig } from "./setup.js";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.stop();
  rig = undefined;
});

const first = [
  { role: "user", content: "one" },
  { role: "assistant", content: "first" },
];

/** The second turn of session "s": the two messages the first one added, on top of `first`. */
const addsToFirst = {
  sessionId: "s",
  messageId: "m2",
  content: "three",
  history: [
    { role: "user", content: "two" },
    { role: "assistant", content: "a" },
  ],
  historyGeneration: "g",
  historyBase: 2,
  historyDigest: chainHistoryDigest("", first),
};

describe("Agent: conversations kept between turns", () => {
  it("a request that adds to the kept copy shows the model the whole conversation", async () => {
    rig = await startRig({}, { turns: [reply.text("a"), reply.text("b")] });
    const { engine, model } = rig;
    expect(
      (await engine.turn({ sessionId: "s", messageId: "m1", content: "two", history: first, historyGeneration: "g" }))
        .error,
    ).toBeUndefined();
    const out = await engine.turn(addsToFirst);
    expect(out.error).toBeUndefined();
    expect(model.chatRequests()[1]?.messages).toEqual([
      { role: "user", content: "one" },
      { role: "assistant", content: "first" },
      { role: "user", content: "two" },
      { role: "assistant", content: "a" },
      { role: "user", content: "three" },
    ]);
  });

  it("drops a conversation after the Engine's session idle window (config.historyIdleMs), then asks for it whole", async () => {
    rig = await startRig({}, { turns: [reply.text("a"), reply.text("b")] }, { historyIdleMs: 200 });
    const { engine, model } = rig;
    expect(
      (await engine.turn({ sessionId: "s", messageId: "m1", content: "two", history: first, historyGeneration: "g" }))
        .error,
    ).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 500));
    engine.send({
      directive: {
        case: "process",
        value: addsToFirst,
      },
    });
    const needed = await waitFor(() => engine.events.find((e) => e.event.case === "historyNeeded"), {
      timeoutMs: 5000,
      message: "HistoryNeeded",
    });
    expect(needed.event.case === "historyNeeded" && needed.event.value.reason).toContain("no copy");
    expect(model.chatRequests()).toHaveLength(1);
  });

  it("a base it does not hold is answered with HistoryNeeded, without calling the model", async () => {
    rig = await startRig({}, { turns: [reply.text("a")] });
    const { engine, model } = rig;
    engine.send({
      directive: {
        case: "process",
        value: {
          sessionId: "s",
          messageId: "m1",
          content: "two",
          history: [{ role: "user", content: "x" }],
          historyGeneration: "g",
          historyBase: 2,
          historyDigest: chainHistoryDigest("", first),
        },
      },
    });
    const needed = await waitFor(() => engine.events.find((e) => e.event.case === "historyNeeded"), {
      timeoutMs: 5000,
      message: "HistoryNeeded",
    });
    expect(needed.event.value).toMatchObject({ sessionId: "s", messageId: "m1" });
    expect(needed.event.case === "historyNeeded" && needed.event.value.reason).toContain("no copy");
    // The same message id may come again, whole: the turn then runs.
    const out = await engine.turn({
      sessionId: "s",
      messageId: "m1",
      content: "two",
      history: first,
      historyGeneration: "g2",
    });
    expect(out.error).toBeUndefined();
    expect(model.chatRequests()).toHaveLength(1);
    expect(model.chatRequests()[0]?.messages.map((m) => m.content)).toEqual(["one", "first", "two"]);
  });
});

describe("Agent: system prompt and tools kept with the conversation", () => {
  const demoTool = {
    name: "demo__echo",
    description: "Echo the text.",
    parametersJson: JSON.stringify({ type: "object", properties: { text: { type: "string" } } }),
    group: "demo",
  };

  it("a request with same_definitions runs with the system prompt and tools its kept copy came with", async () => {
    rig = await startRig({}, { turns: [reply.text("a"), reply.text("b")] });
    const { engine, model } = rig;
    const one = await engine.turn({
      sessionId: "s",
      messageId: "m1",
      content: "two",
      history: first,
      historyGeneration: "g",
      systemPrompt: "You are Ada.",
      loadedGroups: ["demo"],
      tools: [demoTool],
    });
    expect(one.error).toBeUndefined();
    const out = await engine.turn({ ...addsToFirst, sameDefinitions: true });
    expect(out.error).toBeUndefined();
    const [r1, r2] = model.chatRequests();
    expect(r2?.messages[0]).toEqual({ role: "system", content: "You are Ada." });
    expect(r2?.messages[0]).toEqual(r1?.messages[0]);
    expect((r2?.tools ?? []).map((t) => (t.type === "function" ? t.function.name : ""))).toContain("demo__echo");
    expect(r2?.tools).toEqual(r1?.tools);
  });

  it("same_definitions without a kept copy is answered with HistoryNeeded, without calling the model", async () => {
    rig = await startRig({}, { turns: [reply.text("a")] });
    const { engine, model } = rig;
    engine.send({ directive: { case: "process", value: { ...addsToFirst, sameDefinitions: true } } });
    const needed = await waitFor(() => engine.events.find((e) => e.event.case === "historyNeeded"), {
      timeoutMs: 5000,
      message: "HistoryNeeded",
    });
    expect(needed.event.value).toMatchObject({ sessionId: "s", messageId: "m2" });
    // A whole request that claims the definitions of a copy is refused the same way.
    engine.send({
      directive: {
        case: "process",
        value: { sessionId: "s", messageId: "m3", content: "x", historyGeneration: "g", sameDefinitions: true },
      },
    });
    await waitFor(
      () =>
        engine.events.find(
          (e) =>
            e.event.case === "historyNeeded" && e.event.value.messageId === "m3" && /faulty/.test(e.event.value.reason),
        ),
      { timeoutMs: 5000, message: "HistoryNeeded for m3" },
    );
    expect(model.chatRequests()).toHaveLength(0);
  });
});
