import {
  createShield,
  evaluateWithApproval,
  loadPolicy,
  parsePolicy,
  resolveApproval,
  type Policy,
  type Verdict,
} from "@palisade/shield";
import { describe, expect, it } from "vitest";
import { HOME, WORKSPACE } from "./helpers.js";

const policy = await loadPolicy("default");
const base = { policy, home: HOME, workspace: WORKSPACE };

describe("verdicts", () => {
  it("carry decision, tier, confidence, reason, rule ids, evaluation time and policy version", () => {
    const s = createShield({ ...base, cache: false });
    const v = s.evaluateSync({ tool: "files__read_file", args: { path: "~/.ssh/id_rsa" } });
    expect(v).toMatchObject({ decision: "block", tier: 1, cached: false, policyVersion: policy.version });
    expect(v.confidence).toBeGreaterThan(0.5);
    expect(v.reason).toMatch(/cred\.ssh-key: .*\/home\/dev\/\.ssh\/id_rsa/);
    expect(v.rules).toContain("cred.ssh-key");
    expect(v.evaluationUs).toBeGreaterThanOrEqual(0);
  });

  it("never throws and fails closed on internal errors", async () => {
    const broken: Policy = {
      ...policy,
      rules: [{ id: "bad", decision: "allow", tools: null as unknown as string[], line: 1 }],
    };
    const s = createShield({ ...base, policy: broken, cache: false });
    const v = s.evaluateSync({ tool: "files__read_file", args: { path: "a" } });
    expect(v).toMatchObject({ decision: "block", tier: 0, rules: ["shield.internal-error"] });
    expect(v.reason).toMatch(/internal error \(failing closed\)/);
    await expect(s.evaluate({ tool: "x", args: {} })).resolves.toMatchObject({ decision: "block" });
    expect(s.stats().internalErrors).toBe(2);
  });

  it("tools named after Object.prototype members are third-party tools, not internal errors", () => {
    const s = createShield({ ...base, cache: false });
    for (const tool of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const v = s.evaluateSync({ tool, args: { note: "hello" } });
      expect(v.rules).not.toContain("shield.internal-error");
    }
    expect(s.stats().internalErrors).toBe(0);
  });

  it("odd argument shapes are judged, not crashed on", () => {
    const s = createShield({ ...base, cache: false });
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic["self"] = cyclic;
    for (const args of [
      null,
      undefined,
      42,
      "not json",
      '{"path": "~/.ssh/id_rsa"}',
      [1, 2],
      { __proto__: { path: "/etc/shadow" } },
      cyclic,
    ]) {
      const v = s.evaluateSync({ tool: "files__read_file", args });
      expect(["allow", "escalate", "block"]).toContain(v.decision);
    }
    expect(s.evaluateSync({ tool: "files__read_file", args: '{"path": "~/.ssh/id_rsa"}' }).decision).toBe("block");
    expect(s.evaluateSync({ tool: 42 as unknown as string, args: {} }).decision).toBe("block");
  });
});

describe("cache", () => {
  it("hits on the same tool + normalized args + context, expires after the TTL", () => {
    let now = 1_000_000;
    const s = createShield({ ...base, cache: { ttlMs: 1000 }, now: () => now });
    const a = { tool: "files__read_file", args: { path: "src/a.ts" } };
    expect(s.evaluateSync(a).cached).toBe(false);
    expect(s.evaluateSync(a).cached).toBe(true);
    // same arguments after normalization (key order, NFKC): still a hit
    expect(s.evaluateSync({ tool: "files__read_file", args: { path: "src/a.ts" } }).cached).toBe(true);
    // different context: a miss
    expect(s.evaluateSync(a, { mode: "otr" }).cached).toBe(false);
    now += 1001;
    expect(s.evaluateSync(a).cached).toBe(false);
    expect(s.stats().cacheHits).toBe(2);
  });

  it("is keyed by policy version", () => {
    const p2 = parsePolicy("version: 1\nname: default\nrules: []\n", "other.yaml");
    expect(p2.version).not.toBe(policy.version);
    const s1 = createShield({ ...base });
    const s2 = createShield({ ...base, policy: p2 });
    const a = { tool: "files__read_file", args: { path: "src/a.ts" } };
    expect(s1.evaluateSync(a).policyVersion).toBe(policy.version);
    expect(s2.evaluateSync(a).policyVersion).toBe(p2.version);
  });
});

describe("rate limit", () => {
  it("blocks a session over its per-minute budget, per session, and recovers next minute", () => {
    let now = 0;
    const s = createShield({ ...base, cache: false, rateLimitPerMinute: 3, now: () => now });
    const a = { tool: "files__read_file", args: { path: "a" } };
    for (let i = 0; i < 3; i++) expect(s.evaluateSync(a, { sessionId: "s1" }).decision).toBe("allow");
    const v = s.evaluateSync(a, { sessionId: "s1" });
    expect(v).toMatchObject({ decision: "block", rules: ["rate-limit"] });
    expect(s.evaluateSync(a, { sessionId: "s2" }).decision).toBe("allow");
    now += 60_000;
    expect(s.evaluateSync(a, { sessionId: "s1" }).decision).toBe("allow");
  });
});

describe("audit hook and tier 3", () => {
  it("reports every verdict to onVerdict; a throwing hook changes nothing", () => {
    const seen: Verdict[] = [];
    const s = createShield({
      ...base,
      cache: false,
      onVerdict: (_a, _c, v) => {
        seen.push(v);
        throw new Error("audit down");
      },
    });
    const v = s.evaluateSync({ tool: "files__read_file", args: { path: "a" } });
    expect(v.decision).toBe("allow");
    expect(seen).toEqual([v]);
  });

  it("resolveApproval: only an explicit approval allows; denial, timeout and cancellation block", () => {
    const s = createShield({ ...base, cache: false });
    const esc = s.evaluateSync({ tool: "mail__send_email", args: { to: "a@b.com", subject: "s", body: "b" } });
    expect(esc.decision).toBe("escalate");
    expect(resolveApproval(esc, { kind: "approved", by: "dev" })).toMatchObject({
      decision: "allow",
      tier: 3,
      rules: [...esc.rules, "human:approved"],
    });
    expect(resolveApproval(esc, { kind: "denied" })).toMatchObject({ decision: "block", tier: 3 });
    expect(resolveApproval(esc, { kind: "timeout", afterMs: 5000 }).reason).toMatch(/no approval within 5000 ms/);
    expect(resolveApproval(esc, { kind: "cancelled" }).decision).toBe("block");
  });

  it("evaluateWithApproval asks only on ESCALATE and treats a failing approver as a denial", async () => {
    const s = createShield({ ...base, cache: false });
    const signal = new AbortController().signal;
    let asked = 0;
    const approve = async () => {
      asked++;
      return { kind: "approved" as const };
    };
    expect(
      (await evaluateWithApproval(s.evaluate, approve, { tool: "files__read_file", args: { path: "a" } }, {}, signal))
        .tier,
    ).toBe(0);
    expect(asked).toBe(0);
    const mail = { tool: "mail__send_email", args: { to: "a@b.com", subject: "s", body: "b" } };
    expect(await evaluateWithApproval(s.evaluate, approve, mail, {}, signal)).toMatchObject({
      decision: "allow",
      tier: 3,
    });
    const broken = async (): Promise<never> => {
      throw new Error("client gone");
    };
    expect(await evaluateWithApproval(s.evaluate, broken, mail, {}, signal)).toMatchObject({
      decision: "block",
      tier: 3,
    });
  });
});
