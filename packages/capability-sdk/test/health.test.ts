import { describe, expect, it } from "vitest";
import { defineCapability } from "@palisade/capability-sdk";
import type { Readiness } from "@palisade/capability-sdk";
import { start } from "./helpers.js";

const tool = { name: "t", description: "A tool.", inputSchema: { type: "object" }, handler: async () => null };

async function health(ready: () => Promise<Readiness>) {
  const h = await start(defineCapability({ id: "h", tools: [tool], ready }));
  try {
    return { res: await h.client.healthcheck({}), logs: h.logs };
  } finally {
    await h.stop();
  }
}

describe("Healthcheck", () => {
  it("reports the hook's readiness and message", async () => {
    let state: Readiness = { ready: false, message: "warming cache" };
    const h = await start(defineCapability({ id: "h", tools: [tool], ready: async () => state }));
    try {
      expect(await h.client.healthcheck({})).toMatchObject({ ready: false, message: "warming cache" });
      state = { ready: true };
      expect(await h.client.healthcheck({})).toMatchObject({ ready: true, message: "" });
    } finally {
      await h.stop();
    }
  });

  it("turns a throwing hook into not ready with the reason", async () => {
    const { res, logs } = await health(async () => {
      throw new Error("database unreachable");
    });
    expect(res).toMatchObject({ ready: false, message: "readiness check failed: database unreachable" });
    expect(logs.some((l) => l.includes("readiness hook threw"))).toBe(true);
  });
});
