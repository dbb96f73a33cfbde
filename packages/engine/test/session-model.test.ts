// A session records the model it starts with (the configured one unless asked for another), and
// a model asked for with a message is used for that message, also in a stored session. A session
// that did not choose its model follows the configuration when it changes; a chosen one stays.
import { afterEach, describe, expect, it } from "vitest";
import { MemoryStore } from "../src/testing.js";
import { defaultConfig } from "@palisade/config";
import { startHarness } from "./helpers/setup.js";
import type { Harness } from "./helpers/setup.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** An Engine on `store` whose configured model is `name` (as after a restart with a new config). */
function configuredWith(name: string) {
  const config = defaultConfig();
  config.model.baseUrl = "http://127.0.0.1:1/v1";
  config.model.name = name;
  return config;
}

async function turn(
  h: Harness,
  content: string,
  sessionId: string,
  model: string,
): Promise<{ sessionId: string; model: string }> {
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

  it("a session that did not choose its model follows the configured one after it changed, and records it; a chosen model stays", async () => {
    const store = new MemoryStore();
    h = await startHarness({ store, config: configuredWith("model-one") });
    const plain = await turn(h, "hello", "", "");
    expect(plain.model).toBe("model-one");
    const chosenSession = await h.client.createSession({ model: "picked-model" });
    const chosen = await turn(h, "hello", chosenSession.session?.id ?? "", "");
    expect(chosen.model).toBe("picked-model");
    await h.close();

    h = await startHarness({ store, config: configuredWith("model-two") });
    expect(await turn(h, "resumed", plain.sessionId, "")).toEqual({ sessionId: plain.sessionId, model: "model-two" });
    expect((await store.getSession(plain.sessionId))?.model).toBe("model-two");
    expect(await turn(h, "resumed", chosen.sessionId, "")).toEqual({
      sessionId: chosen.sessionId,
      model: "picked-model",
    });
    expect((await store.getSession(chosen.sessionId))?.model).toBe("picked-model");
  });
});
