// A session records the model it starts with (the configured one unless asked for another), and
// a model asked for with a message is used for that message, also in a stored session.
import { afterEach, describe, expect, it } from "vitest";
import { startHarness } from "./helpers/setup.js";
import type { Harness } from "./helpers/setup.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function turn(h: Harness, content: string, sessionId: string, model: string): Promise<{ sessionId: string; model: string }> {
  const stream = (async () => {
    for await (const ev of h.client.sendMessage({ content, sessionId, model })) void ev;
  })();
  const p = await h.agent.next("process");
  await h.agent.complete(p.sessionId, p.messageId, "ok");
  await stream;
  return { sessionId: p.sessionId, model: p.model };
}

describe("the model of a session", () => {
  it("is recorded when the session starts; a message may ask for another", async () => {
    h = await startHarness();
    const configured = h.engine.config.model.name;
    expect(configured).not.toBe("");
    const first = await turn(h, "hello", "", "");
    expect(first.model).toBe(configured);
    expect((await h.store.getSession(first.sessionId))?.model).toBe(configured);
    const second = await turn(h, "again, with another model", first.sessionId, "other-model");
    expect(second).toEqual({ sessionId: first.sessionId, model: "other-model" });
  });
});
