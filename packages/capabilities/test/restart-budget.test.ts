// The one restart budget of every supervised process (the Agent, Selu capabilities, MCP servers):
// at most `max` restarts in any window. Pure; times are given.
import { describe, expect, it } from "vitest";
import { RESTART_WINDOW_MS, RestartBudget } from "@palisade/capabilities";

describe("RestartBudget", () => {
  it("allows `max` restarts in a window, then refuses until the oldest leaves it", () => {
    const b = new RestartBudget(5, 60_000);
    for (let t = 1; t <= 5; t++) expect(b.take(t)).toBe(true);
    expect(b.restarts(10)).toBe(5);
    expect(b.allows(10)).toBe(false);
    expect(b.take(10)).toBe(false);
    expect(b.restarts(10)).toBe(5);
    expect(b.allows(60_001)).toBe(true);
    expect(b.take(60_001)).toBe(true);
    expect(b.restarts(70_000)).toBe(1);
  });

  it("a process that crashes less often than its budget allows is restarted each time", () => {
    const b = new RestartBudget(2);
    expect(b.windowMs).toBe(RESTART_WINDOW_MS);
    const minute = 60_000;
    // A crash every 6 minutes: never more than 2 within 10 minutes.
    for (let t = 0; t <= 60 * minute; t += 6 * minute)
      expect(b.take(t), `crash at ${String(t / minute)} min`).toBe(true);
    // Three within 10 minutes: the third is refused.
    const loop = new RestartBudget(2);
    expect([0, minute, 2 * minute].map((t) => loop.take(t))).toEqual([true, true, false]);
  });
});
