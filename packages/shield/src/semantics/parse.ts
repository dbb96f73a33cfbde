/**
 * A tool's declared `semantics:` block (capability config entry, manifest or policy): what kind
 * of tool it is and which arguments hold recipients, hosts, paths, commands and outgoing text.
 *
 *   semantics:
 *     kind: mail                 # mail|http|shell|file-read|file-write|file-delete|file-move|file-copy|
 *                                # document-read|document-write|spawn-agent|agent-message|agent-control|load-tools|other
 *     recipients: [to, cc, bcc]  # e-mail addresses
 *     hosts: [url]               # URLs or hosts the tool contacts
 *     paths: { attachments: read }   # or a list (what the tool does to them is then unknown)
 *     commands: [command]        # shell command lines
 *     content: [subject, body]   # text that leaves the machine
 *     model_facing: [task]       # text another model reads
 *     method: method             # the argument holding the HTTP method
 */
import { ShieldError } from "../errors.js";
import type { PathOp, ToolSpec } from "./spec.js";

export const SEMANTIC_KINDS = [
  "mail",
  "http",
  "shell",
  "file-read",
  "file-write",
  "file-delete",
  "file-move",
  "file-copy",
  "document-read",
  "document-write",
  "spawn-agent",
  "agent-message",
  "agent-control",
  "load-tools",
  "other",
] as const;
const KEYS = ["kind", "recipients", "hosts", "paths", "commands", "content", "model_facing", "method"];
const OPS: readonly PathOp[] = ["read", "write", "delete", "exec", "unknown"];
const ARG = /^[A-Za-z_$][\w$-]{0,63}$/;

export interface SemanticsProblem {
  /** Dotted path of the offending field, e.g. `semantics.paths.attachments`. */
  path: string;
  message: string;
}

export class SemanticsError extends ShieldError {
  constructor(readonly problems: SemanticsProblem[]) {
    super(problems.map((p) => `${p.path}: ${p.message}`).join("\n"), "SEMANTICS_INVALID");
  }
}

/** Validates a semantics block; every problem is reported with its path. Never throws. */
export function checkSemantics(value: unknown, where = "semantics"): { spec?: ToolSpec; problems: SemanticsProblem[] } {
  const problems: SemanticsProblem[] = [];
  const bad = (path: string, message: string): void => void problems.push({ path, message });
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    bad(where, "must be a mapping with at least `kind`");
    return { problems };
  }
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!KEYS.includes(k)) bad(`${where}.${k}`, `unknown key (allowed: ${KEYS.join(", ")})`);
  const kind = o["kind"];
  if (typeof kind !== "string" || !(SEMANTIC_KINDS as readonly string[]).includes(kind))
    bad(
      `${where}.kind`,
      `must be one of ${SEMANTIC_KINDS.join(", ")}${kind === undefined ? "" : ` (got ${JSON.stringify(kind)})`}`,
    );
  const names = (key: string): string[] => {
    const v = o[key];
    if (v === undefined) return [];
    const list = typeof v === "string" ? [v] : Array.isArray(v) ? v : undefined;
    if (list === undefined) {
      bad(`${where}.${key}`, "must be an argument name or a list of them");
      return [];
    }
    return list.filter((n, i): n is string => {
      const ok = typeof n === "string" && ARG.test(n);
      if (!ok) bad(`${where}.${key}[${i}]`, `must be an argument name (got ${JSON.stringify(n)})`);
      return ok;
    });
  };
  const paths: Record<string, PathOp> = {};
  const p = o["paths"];
  if (p !== undefined && p !== null && typeof p === "object" && !Array.isArray(p)) {
    for (const [arg, op] of Object.entries(p as Record<string, unknown>)) {
      if (!ARG.test(arg)) bad(`${where}.paths.${arg}`, "must be an argument name");
      else if (typeof op !== "string" || !(OPS as readonly string[]).includes(op))
        bad(`${where}.paths.${arg}`, `must be one of ${OPS.join(", ")} (got ${JSON.stringify(op)})`);
      else paths[arg] = op as PathOp;
    }
  } else for (const arg of names("paths")) paths[arg] = "unknown";
  const method = o["method"];
  if (method !== undefined && (typeof method !== "string" || !ARG.test(method)))
    bad(`${where}.method`, "must be an argument name");
  const recipients = names("recipients");
  const urls = names("hosts");
  const commands = names("commands");
  const content = names("content");
  const modelFacing = names("model_facing");
  if (problems.length > 0) return { problems };
  const k = kind as (typeof SEMANTIC_KINDS)[number];
  const spec: ToolSpec = {
    kind: k === "other" ? "third-party" : k,
    paths,
    recipients,
    urls,
    commands,
    outgoing: [...new Set([...recipients, ...urls, ...content])],
    modelFacing,
    source: "declared",
    ...(typeof method === "string"
      ? { method }
      : k === "http" && content.length > 0
        ? { defaultMethod: "POST" as const }
        : {}),
  };
  return { spec, problems };
}

/** As checkSemantics, throwing SemanticsError when the block is invalid. */
export function parseSemantics(value: unknown, where = "semantics"): ToolSpec {
  const r = checkSemantics(value, where);
  if (r.spec === undefined) throw new SemanticsError(r.problems);
  return r.spec;
}
