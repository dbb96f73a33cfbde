import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { chainHistoryDigest } from "@palisade/protocol";
import { ContextMessageSchema } from "@palisade/protocol/pipeline";
import type { ContextMessage } from "@palisade/protocol/pipeline";
import { HistoryCache } from "@palisade/agent";

const msg = (role: string, content: string): ContextMessage => create(ContextMessageSchema, { role, content });
const first = [msg("user", "one"), msg("assistant", "first")];
const second = [msg("user", "two"), msg("assistant", "second")];
const whole = (history: ContextMessage[], generation = "g1") => ({
  sessionId: "s",
  history,
  historyGeneration: generation,
  historyBase: 0,
  historyDigest: "",
});
const delta = (history: ContextMessage[], base: number, digest: string, generation = "g1", sessionId = "s") => ({
  sessionId,
  history,
  historyGeneration: generation,
  historyBase: base,
  historyDigest: digest,
});
const contents = (r: ReturnType<HistoryCache["resolve"]>): string[] =>
  "history" in r ? r.history.map((m) => m.content) : [`missing: ${r.missing}`];

describe("the Agent's copy of a conversation", () => {
  it("keeps what a whole history gave and appends what a request with the matching base adds", () => {
    const cache = new HistoryCache();
    expect(contents(cache.resolve(whole(first)))).toEqual(["one", "first"]);
    const r = cache.resolve(delta(second, 2, chainHistoryDigest("", first)));
    expect(contents(r)).toEqual(["one", "first", "two", "second"]);
    const d2 = chainHistoryDigest(chainHistoryDigest("", first), second);
    expect(contents(cache.resolve(delta([], 4, d2)))).toEqual(["one", "first", "two", "second"]);
  });

  it("a request's conversation is its own: appending for the next one does not change it", () => {
    const cache = new HistoryCache();
    const a = cache.resolve(whole(first));
    cache.resolve(delta(second, 2, chainHistoryDigest("", first)));
    expect(contents(a)).toEqual(["one", "first"]);
  });

  it("reports what is missing and drops its copy when the base differs in generation, count or digest", () => {
    const d1 = chainHistoryDigest("", first);
    const cases: [string, ReturnType<typeof delta>][] = [
      ["another version", delta(second, 2, d1, "g2")],
      ["holds 2 messages of this conversation, not 3", delta(second, 3, d1)],
      [
        "differs from the Engine's (digest)",
        delta(second, 2, chainHistoryDigest("", [msg("user", "one"), msg("assistant", "FIRST")])),
      ],
      ["holds no copy", delta(second, 2, d1, "g1", "other")],
    ];
    for (const [why, req] of cases) {
      const cache = new HistoryCache();
      cache.resolve(whole(first));
      const r = cache.resolve(req);
      expect("missing" in r && r.missing, why).toContain(why);
      // Even the right base later finds nothing: a copy that disagreed once is not trusted again.
      if (req.sessionId === "s") expect("missing" in cache.resolve(delta(second, 2, d1))).toBe(true);
    }
  });

  it("a request without a generation is the whole conversation and drops the copy", () => {
    const cache = new HistoryCache();
    cache.resolve(whole(first));
    expect(
      contents(
        cache.resolve({ sessionId: "s", history: second, historyGeneration: "", historyBase: 0, historyDigest: "" }),
      ),
    ).toEqual(["two", "second"]);
    expect(cache.sessions).toBe(0);
  });

  it("drops copies idle for the idle window", () => {
    let now = 0;
    const cache = new HistoryCache({ idleMs: 1000, now: () => now });
    cache.resolve(whole(first));
    cache.resolve({ ...whole(second), sessionId: "t" });
    now = 600;
    cache.resolve(delta([], 2, chainHistoryDigest("", first)));
    now = 1200;
    cache.sweep();
    expect(cache.sessions).toBe(1);
    expect("missing" in cache.resolve(delta([], 2, chainHistoryDigest("", second), "g1", "t"))).toBe(true);
    now = 1500;
    expect(contents(cache.resolve(delta([], 2, chainHistoryDigest("", first))))).toEqual(["one", "first"]);
  });

  it("past the byte cap the least recently used copies go first", () => {
    const big = (s: string) => [msg("user", s.repeat(1000))];
    const cache = new HistoryCache({ maxBytes: 5000 });
    cache.resolve({ ...whole(big("a")), sessionId: "a" });
    cache.resolve({ ...whole(big("b")), sessionId: "b" });
    expect(cache.sessions).toBe(2);
    cache.resolve({ ...whole(big("c")), sessionId: "c" });
    expect(cache.sessions).toBe(2);
    expect(cache.heldBytes).toBeLessThanOrEqual(5000);
    expect("missing" in cache.resolve(delta([], 1, chainHistoryDigest("", big("a")), "g1", "a"))).toBe(true);
    expect("history" in cache.resolve(delta([], 1, chainHistoryDigest("", big("c")), "g1", "c"))).toBe(true);
  });
});
