import { afterEach, describe, expect, it } from "vitest";
import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import { collect, startHarness } from "./helpers/setup.js";
import type { Harness } from "./helpers/setup.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("a graceful stop loses nothing", () => {
  it("a turn still streaming when the deadline passes is cancelled and saved with what was streamed", async () => {
    h = await startHarness();
    const { client, agent, store } = h;
    const done = collect(client.sendMessage({ content: "tell me everything" }));
    const p = await agent.next("process");
    await agent.token(p.sessionId, p.messageId, "Part one, ");
    await agent.token(p.sessionId, p.messageId, "part two");
    await new Promise((r) => setTimeout(r, 50));
    const stopping = h.engine.stop(200);
    const evs = await done;
    expect(evs.at(-1)?.eventType).toBe(T.TURN_CANCELLED);
    expect(evs.at(-1)?.turnCancelled?.reason).toBe("the Engine is shutting down");
    await stopping;
    const messages = await store.contextMessages(p.sessionId);
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "tell me everything"],
      ["assistant", "Part one, part two"],
    ]);
  });

  it("a turn cancelled before any text keeps only the question", async () => {
    h = await startHarness();
    const { client, agent, store } = h;
    const done = collect(client.sendMessage({ content: "never mind" }));
    const p = await agent.next("process");
    await new Promise((r) => setTimeout(r, 20));
    expect((await client.cancelMessage({ sessionId: p.sessionId, messageId: p.messageId })).cancelled).toBe(true);
    await done;
    expect((await store.contextMessages(p.sessionId)).map((m) => m.role)).toEqual(["user"]);
  });
});
