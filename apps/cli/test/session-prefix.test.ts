import { describe, expect, it } from "vitest";
import type { EngineClient } from "../src/engine/connect.js";
import { resolveSessionId } from "../src/engine/sessions.js";

const client = (ids: string[]): EngineClient =>
  ({
    listSessions: async () => ({ sessions: ids.map((id) => ({ id, title: "" })), total: ids.length }),
  }) as unknown as EngineClient;

describe("session id prefixes", () => {
  it("accept the prefix lists show, with or without ses_", async () => {
    const c = client(["ses_740fa1b2-0000", "ses_81aa0000-1111"]);
    expect(await resolveSessionId(c, "740f")).toBe("ses_740fa1b2-0000");
    expect(await resolveSessionId(c, "ses_740f")).toBe("ses_740fa1b2-0000");
    await expect(resolveSessionId(c, "9999")).rejects.toThrow("no stored session id starts with '9999'");
  });
});
