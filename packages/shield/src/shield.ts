/**
 * The Shield: evaluate(action, context) → Verdict. Tier 0 policy, tier 1 detectors, tier 2
 * optional LLM judge; ESCALATE goes to the Engine's human approval (tier 3, see approval.ts).
 * Never throws: any internal error is a BLOCK (fail closed).
 */
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { VerdictCache, RateLimiter } from "./cache.js";
import { runDetectors } from "./detectors/index.js";
import type { Judge } from "./judge/types.js";
import { judgeFlow } from "./judge/flow.js";
import { buildSubject, canonicalArgs, type ResolvedContext, type Subject } from "./normalize/subject.js";
import { actionClassOf, type ActionClass } from "./action-class.js";
import { evaluatePolicy } from "./policy/evaluate.js";
import { visible } from "./visible.js";
import { toolSpec, type ToolSpec } from "./tools.js";
import { globTester } from "./policy/match.js";
import { argumentValues, attachProvenance } from "./provenance/attach.js";
import type { ArgValue, Label } from "./provenance/types.js";
import { secretWrites as writesOf } from "./provenance/writes.js";
import { carriedData } from "./provenance/grant.js";
import { provenanceKey } from "./provenance/cache-key.js";
import type { Policy } from "./policy/types.js";
import {
  stricter,
  type Action,
  type Decision,
  type Finding,
  type ShieldContext,
  type Tier,
  type Verdict,
} from "./types.js";

export interface ShieldOptions {
  policy: Policy;
  /** Used to expand `~` when the context has no `home`. Default: the user's home directory. */
  home?: string;
  /** Used to resolve relative paths when the context has no `workspace`. Default: process.cwd(). */
  workspace?: string;
  /** More directories that no action may touch (Palisade's config and data directories). */
  protectedPaths?: string[];
  /** Tier 2. Consulted for escalations the detectors raised, see `judgeScope`. */
  judge?: Judge;
  /**
   * `detector-escalations` (default): only escalations raised by detectors or by default
   * decisions go to the judge; explicit `escalate` policy rules always reach a human.
   * `all-escalations`: every escalation goes to the judge first.
   */
  judgeScope?: "detector-escalations" | "all-escalations";
  /** Cache settings; default TTL from the policy (`cache.ttl_seconds`), 10 000 entries. false disables. */
  cache?: { ttlMs?: number; maxEntries?: number } | false;
  /** Per-session evaluations per minute; default from the policy (`rate_limit.per_minute`). */
  rateLimitPerMinute?: number;
  /** Called with every verdict (for the audit log). Errors thrown by it are ignored. */
  onVerdict?: (action: Action, context: ShieldContext, verdict: Verdict) => void;
  /** Clock in ms (tests). */
  now?: () => number;
}

export interface ShieldStats {
  evaluations: number;
  cacheHits: number;
  allowed: number;
  blocked: number;
  escalated: number;
  judgeCalls: number;
  internalErrors: number;
}

export interface Shield {
  readonly policy: Policy;
  /** All tiers the shield has (0-2). Never rejects. Safe to pass around unbound. */
  evaluate: (action: Action, context?: ShieldContext, signal?: AbortSignal) => Promise<Verdict>;
  /** Tiers 0-1 only (deterministic, synchronous). Never throws. */
  evaluateSync: (action: Action, context?: ShieldContext) => Verdict;
  stats: () => ShieldStats;
  /** The class a session grant for this action covers (see action-class.ts). */
  actionClass: (action: Action, context?: ShieldContext) => ActionClass;
  /**
   * What the tool's arguments mean, as the Shield reads them for this context: declared
   * (context, then policy), inferred from the schema, or built in. Throws SemanticsError for an
   * invalid declared block.
   */
  semantics: (tool: string, context?: ShieldContext) => ToolSpec;
  /** Each argument value in a role with its origins, from `context.provenance` ([] without it). */
  argumentProvenance: (action: Action, context?: ShieldContext) => ArgValue[];
  /**
   * After the action ran: the files it wrote a secret into (content carrying a secret value, a
   * copy or redirect of a file known to hold one), for `ProvenanceIndex.markSecretFile`.
   */
  secretWrites: (action: Action, context?: ShieldContext, callId?: string) => { path: string; label: Label }[];
}

interface Preliminary {
  verdict: Verdict;
  /** Escalation eligible for the judge. */
  judgeable: boolean;
  /** The evaluated subject (absent for rate limits and cache hits): the judge's provenance. */
  subject?: Subject;
  reasons: string[];
  cacheKey: string | undefined;
}

const CONFIDENCE: Record<Decision, number> = { allow: 0.9, escalate: 0.7, block: 0.95 };

const semanticsKeys = new WeakMap<object, string>();
/** Part of the cache key: the same tool name with other semantics or another schema is another action. */
function semanticsKey(ctx: ResolvedContext): string {
  const part = (v: unknown): string => {
    if (v === undefined || v === null) return "";
    if (typeof v !== "object") return JSON.stringify(v);
    let k = semanticsKeys.get(v);
    if (k === undefined) {
      k = createHash("sha256").update(canonicalArgs(v)).digest("base64");
      semanticsKeys.set(v, k);
    }
    return k;
  };
  return `${part(ctx.toolSemantics)}|${part(ctx.toolSchema)}|${part(ctx.toolDescription)}`;
}

export function createShield(options: ShieldOptions): Shield {
  const policy = options.policy;
  const now = options.now ?? Date.now;
  const cache =
    options.cache === false
      ? undefined
      : new VerdictCache(options.cache?.ttlMs ?? policy.cacheTtlMs, options.cache?.maxEntries ?? 10_000);
  const limiter = new RateLimiter(options.rateLimitPerMinute ?? policy.rateLimit.perMinute);
  const defaultHome = options.home ?? homedir();
  const defaultWorkspace = options.workspace ?? process.cwd();
  const stats: ShieldStats = {
    evaluations: 0,
    cacheHits: 0,
    allowed: 0,
    blocked: 0,
    escalated: 0,
    judgeCalls: 0,
    internalErrors: 0,
  };

  const declared = policy.semantics.map((d) => ({ test: globTester(d.glob, { dot: true }), block: d.block }));
  const declaredFor = (tool: string): unknown => declared.find((d) => d.test(tool))?.block;
  const resolve = (c: ShieldContext, tool: string): ResolvedContext => ({
    mode: c.mode ?? "normal",
    subAgent: c.subAgent,
    manifestPolicy: c.manifestPolicy,
    network: c.network,
    home: c.home ?? defaultHome,
    workspace: c.workspace ?? defaultWorkspace,
    protectedPaths: options.protectedPaths ?? [],
    ...(c.toolSemantics !== undefined
      ? { toolSemantics: c.toolSemantics }
      : policy.semantics.length > 0
        ? { toolSemantics: declaredFor(tool) }
        : {}),
    ...(c.toolSchema !== undefined ? { toolSchema: c.toolSchema } : {}),
    ...(c.toolDescription !== undefined ? { toolDescription: c.toolDescription } : {}),
  });

  const verdict = (
    decision: Decision,
    tier: Tier,
    confidence: number,
    reason: string,
    rules: string[],
    started: number,
  ): Verdict => ({
    decision,
    tier,
    confidence,
    reason: visible(reason),
    rules,
    evaluationUs: Math.max(0, Math.round((performance.now() - started) * 1000)),
    cached: false,
    policyVersion: policy.version,
  });

  const record = (action: Action, context: ShieldContext, v: Verdict): Verdict => {
    stats.evaluations++;
    if (v.cached) stats.cacheHits++;
    if (v.decision === "allow") stats.allowed++;
    else if (v.decision === "block") stats.blocked++;
    else stats.escalated++;
    if (options.onVerdict !== undefined) {
      try {
        options.onVerdict(action, context, v);
      } catch {
        /* the audit hook must not change the verdict */
      }
    }
    return v;
  };

  const internalError = (e: unknown, started: number): Verdict => {
    stats.internalErrors++;
    const msg = e instanceof Error ? e.message : String(e);
    return verdict(
      "block",
      0,
      1,
      `Shield internal error (failing closed): ${msg.slice(0, 200)}`,
      ["shield.internal-error"],
      started,
    );
  };

  function preliminary(action: Action, context: ShieldContext, started: number): Preliminary {
    const tool = typeof action.tool === "string" ? action.tool : "";
    if (!limiter.take(context.sessionId ?? "", now())) {
      return {
        verdict: verdict(
          "block",
          0,
          1,
          `rate limit: more than ${options.rateLimitPerMinute ?? policy.rateLimit.perMinute} evaluations per minute in this session`,
          ["rate-limit"],
          started,
        ),
        judgeable: false,
        reasons: [],
        cacheKey: undefined,
      };
    }
    const ctx = resolve(context, tool);
    let cacheKey: string | undefined;
    if (cache !== undefined) {
      const material = [
        policy.version,
        tool,
        semanticsKey(ctx),
        ctx.mode,
        ctx.subAgent ?? "",
        ctx.manifestPolicy ?? "",
        ctx.network === undefined ? "" : `${ctx.network.mode}:${(ctx.network.allow ?? []).join(",")}`,
        ctx.home,
        ctx.workspace,
        provenanceKey(context.provenance),
        canonicalArgs(action.args),
      ].join("\u0000");
      cacheKey = createHash("sha256").update(material).digest("base64");
      const hit = cache.get(cacheKey, now());
      if (hit !== undefined) {
        return {
          verdict: { ...hit, cached: true, evaluationUs: Math.round((performance.now() - started) * 1000) },
          judgeable: false,
          reasons: [],
          cacheKey: undefined,
        };
      }
    }
    const subject = buildSubject(tool, action.args, ctx);
    attachProvenance(subject, context.provenance);
    const p = evaluatePolicy(policy, subject);
    if (p.decision === "block") {
      return {
        verdict: verdict("block", 0, 1, p.reason, p.rules, started),
        judgeable: false,
        reasons: [p.reason],
        cacheKey,
        subject,
      };
    }
    const findings = runDetectors(subject, policy.detectors);
    let decision: Decision = p.decision;
    for (const f of findings) decision = stricter(decision, f.severity);
    const deciding: Finding[] = findings.filter((f) => f.severity === decision);
    const fromDetectors = deciding.length > 0 && decision !== "allow";
    const rules = [...p.rules, ...findings.map((f) => f.id)];
    if (fromDetectors) {
      const reason = deciding.map((f) => `${f.id}: ${f.reason}`).join("; ");
      const judgeable = decision === "escalate" && !(p.explicit && p.decision === "escalate");
      return {
        verdict: verdict(decision, 1, CONFIDENCE[decision], reason, rules, started),
        judgeable,
        reasons: [p.reason, ...findings.map((f) => f.reason)],
        cacheKey,
        subject,
      };
    }
    const judgeable = decision === "escalate" && !p.explicit;
    return {
      verdict: verdict(decision, 0, p.explicit ? 1 : 0.6, p.reason, rules, started),
      judgeable,
      reasons: [p.reason],
      cacheKey,
      subject,
    };
  }

  function evaluateSync(action: Action, context: ShieldContext = {}): Verdict {
    const started = performance.now();
    let v: Verdict;
    try {
      const pre = preliminary(action, context, started);
      v = pre.verdict;
      if (pre.cacheKey !== undefined) cache?.set(pre.cacheKey, v, now());
    } catch (e) {
      v = internalError(e, started);
    }
    return record(action, context, v);
  }

  async function evaluate(action: Action, context: ShieldContext = {}, signal?: AbortSignal): Promise<Verdict> {
    const started = performance.now();
    let v: Verdict;
    try {
      const pre = preliminary(action, context, started);
      v = pre.verdict;
      const judge = options.judge;
      const eligible =
        pre.judgeable || (options.judgeScope === "all-escalations" && v.decision === "escalate" && !v.cached);
      if (judge !== undefined && eligible) {
        stats.judgeCalls++;
        const r = await judge.judge(
          {
            action,
            preliminary: { decision: v.decision, reasons: pre.reasons },
            ...judgeFlow(pre.subject, context.provenance),
          },
          signal,
        );
        const rules = [...v.rules, r.failure !== undefined ? "judge:failure" : `judge:${r.decision}`];
        v = verdict(
          r.decision,
          2,
          r.confidence,
          r.failure !== undefined ? r.reason : `LLM judge (${judge.model}): ${r.reason}`,
          rules,
          started,
        );
        if (r.failure === undefined && pre.cacheKey !== undefined) cache?.set(pre.cacheKey, v, now());
      } else if (pre.cacheKey !== undefined) cache?.set(pre.cacheKey, v, now());
    } catch (e) {
      v = internalError(e, started);
    }
    return record(action, context, v);
  }

  const actionClass = (action: Action, context: ShieldContext = {}): ActionClass => {
    const tool = typeof action.tool === "string" ? action.tool : "";
    const subject = buildSubject(tool, action.args, resolve(context, tool));
    attachProvenance(subject, context.provenance);
    return carriedData(subject, actionClassOf(subject));
  };

  const semantics = (tool: string, context: ShieldContext = {}): ToolSpec => {
    const ctx = resolve(context, tool);
    return toolSpec(tool, ctx.toolSemantics, ctx.toolSchema, ctx.toolDescription);
  };

  const argumentProvenance = (action: Action, context: ShieldContext = {}): ArgValue[] => {
    const tool = typeof action.tool === "string" ? action.tool : "";
    const subject = buildSubject(tool, action.args, resolve(context, tool));
    attachProvenance(subject, context.provenance);
    return argumentValues(subject) ?? [];
  };

  const secretWrites = (
    action: Action,
    context: ShieldContext = {},
    callId?: string,
  ): { path: string; label: Label }[] => {
    if (context.provenance === undefined) return [];
    const tool = typeof action.tool === "string" ? action.tool : "";
    const subject = buildSubject(tool, action.args, resolve(context, tool));
    attachProvenance(subject, context.provenance);
    return writesOf(subject, context.provenance, callId);
  };

  return {
    policy,
    evaluate,
    evaluateSync,
    stats: () => ({ ...stats }),
    actionClass,
    semantics,
    argumentProvenance,
    secretWrites,
  };
}
