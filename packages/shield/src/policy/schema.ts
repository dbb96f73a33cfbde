// JSON Schema of a policy file: every key, its type and its allowed values. The validator is
// compiled ahead of time (schema.generated.ts, `npx tsx scripts/schemas.mjs`), so loading a policy
// compiles nothing. What a schema cannot say (globs, regexes, command and host patterns, `a|b`
// names, duplicate rule ids, semantics blocks) is checked in parse.ts, after this.
import { SEMANTIC_KINDS } from "../semantics/parse.js";
import { BUILTIN_POLICIES } from "./builtin.js";

/** Decisions as written (case does not matter); ask = escalate, deny = block. */
export const DECISION_WORDS = ["allow", "ask", "escalate", "block", "deny"] as const;
export const MODES = ["normal", "otr", "heartbeat"] as const;

/** A regex source matching any of `words` in any case (JSON Schema patterns have no flags). */
function anyCase(words: readonly string[]): string {
  const letters = (w: string): string => [...w].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join("");
  return `^(${words.map(letters).join("|")})$`;
}

/** A string; a number is read as its text (`id: 42`). */
const text = { type: ["string", "number"], "x-message": "must be a string" } as const;
const decision = {
  type: "string",
  pattern: anyCase(DECISION_WORDS),
  "x-message": "must be allow, ask, escalate or block",
} as const;
/** One string or a list of them. */
const strings = (what = "a string or a list of strings") =>
  ({ type: ["string", "array"], items: text, "x-message": `must be ${what}` }) as const;
/** One of `words`, or a list of them. */
const oneOrList = (words: readonly string[], what: string) =>
  ({
    type: ["string", "array"],
    pattern: `^(${words.join("|")})$`,
    items: { type: "string", enum: [...words] },
    "x-message": `must be ${what} (one of ${words.join(", ")}), or a list of them`,
  }) as const;
const section = <P extends Record<string, object>>(properties: P) =>
  ({ type: "object", additionalProperties: false, properties, "x-message": "must be a mapping" }) as const;
/** A mapping whose keys are free (tool globs, detector ids, argument names). */
const mapOf = (value: object, what: string) =>
  ({ type: "object", additionalProperties: value, "x-message": `must be a mapping of ${what}` }) as const;
const seconds = { type: "number", minimum: 0 } as const;

/** `from: untrusted`, `from: untrusted|secret`, `from: [untrusted, secret]`: checked by name in parse-flow.ts. */
const names = strings("a name, names joined by |, or a list of them");

const condition = {
  type: "object",
  additionalProperties: false,
  required: ["roles", "from"],
  properties: {
    roles: { ...names, "x-required": "is required: which arguments (recipient, host, body, …)" },
    from: { ...names, "x-required": "is required: which origins (user, workspace, untrusted, secret, model)" },
  },
  "x-message": "must be a mapping {roles, from}",
} as const;

const rule = {
  type: "object",
  additionalProperties: false,
  required: ["id", "decision"],
  "x-message": "must be a mapping with id and decision",
  properties: {
    id: { ...text, "x-required": "is required: every rule has a unique id" },
    description: text,
    decision: { ...decision, "x-required": "is required: allow, ask, escalate or block" },
    reason: text,
    tools: strings("a tool-name glob or a list of them"),
    kinds: oneOrList(SEMANTIC_KINDS, "a tool kind"),
    paths: strings("a path glob or a list of them"),
    commands: strings("a command pattern or a list of them"),
    args: mapOf(text, "argument name to regex"),
    hosts: strings("a host pattern or a list of them"),
    email_domains: strings("a domain pattern or a list of them"),
    methods: strings("an HTTP method or a list of them"),
    flow: {
      ...condition,
      type: ["object", "array"],
      items: condition,
      "x-message": "must be a mapping {roles, from} or a list of them",
    },
    when: section({
      mode: oneOrList(MODES, "a session mode"),
      sub_agent: { type: "boolean" },
      saw: names,
    }),
  },
} as const;

export const policySchema = {
  type: "object",
  additionalProperties: false,
  required: ["version", "name", "rules"],
  "x-message": "must be a mapping with version: 1, name and rules (see docs/policy.md)",
  properties: {
    version: { const: 1, "x-message": "must be 1", "x-required": 'is required: write "version: 1"' },
    name: { ...text, "x-required": "is required: the policy's name" },
    description: text,
    extends: {
      type: "string",
      enum: [...BUILTIN_POLICIES],
      "x-message": `must name a built-in policy (${BUILTIN_POLICIES.join(", ")})`,
    },
    defaults: section({
      unknown_tool: decision,
      tools: mapOf(decision, "tool glob to decision"),
    }),
    rate_limit: section({ per_minute: seconds }),
    cache: section({ ttl_seconds: seconds }),
    detectors: section({
      disable: strings("a detector id or a list of them"),
      severity: mapOf({ enum: ["block", "escalate"] }, "detector id to block or escalate"),
    }),
    semantics: mapOf(
      { type: "object" },
      "tool glob to a semantics block (kind, recipients, hosts, paths, commands, content, model_facing, method)",
    ),
    rules: {
      type: "array",
      items: rule,
      "x-message": "must be a list of rules",
      "x-required": 'is required (use "rules: []" for a policy without rules)',
    },
  },
} as const;
