// Declared tool semantics are checked before anything runs: a `semantics:` block in a capability's
// config entry (at config load), in a manifest (at Engine start, `capability list`, and the
// preflight of `chat` and `run`). A wrong block would otherwise only surface as blocked calls.
// The block checker alone (the CLI's config check loads this module before any Engine exists).
import { checkSemantics } from "@palisade/shield/semantics";
import type { ConfigIssue } from "./errors.js";

const HOW = 'see docs/policy.md, "Tool semantics"';
/** Keys of a block that name arguments of the tool. */
const ARG_KEYS = ["recipients", "hosts", "commands", "content", "model_facing", "method"] as const;

/** Problems of a config entry's `semantics:` (tool name → block), each with its path. */
export function configSemanticsProblems(value: unknown, at: string): { path: string; message: string }[] {
  if (value === undefined) return [];
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return [
      {
        path: at,
        message: `must map tool names to semantics blocks, e.g. semantics: { send_email: { kind: mail, recipients: [to] } } (${HOW})`,
      },
    ];
  }
  return Object.entries(value as Record<string, unknown>).flatMap(([tool, block]) =>
    blockProblems(block, `${at}.${tool}`),
  );
}

/** Problems of one block: what is wrong, and how to fix it. */
export function blockProblems(block: unknown, at: string): { path: string; message: string }[] {
  return checkSemantics(block, at).problems.map((p) => ({ path: p.path, message: `${p.message} (${HOW})` }));
}

/**
 * Arguments a valid block names that the tool's JSON Schema does not have: a misspelt `to` would
 * leave a mail tool's recipients unseen.
 */
export function unknownArguments(
  block: Record<string, unknown>,
  schema: Record<string, unknown>,
  at: string,
): { path: string; message: string }[] {
  const props = schema["properties"];
  if (props === null || typeof props !== "object" || Array.isArray(props)) return [];
  const known = Object.keys(props);
  const out: { path: string; message: string }[] = [];
  const check = (name: unknown, path: string): void => {
    if (typeof name === "string" && !known.includes(name)) {
      out.push({
        path,
        message: `names the argument ${JSON.stringify(name)}, which the tool's input_schema does not have (its arguments: ${known.join(", ") || "none"}); name one of them`,
      });
    }
  };
  for (const key of ARG_KEYS) {
    const v = block[key];
    if (Array.isArray(v)) v.forEach((n, i) => check(n, `${at}.${key}[${i}]`));
    else check(v, `${at}.${key}`);
  }
  const paths = block["paths"];
  if (Array.isArray(paths)) paths.forEach((n, i) => check(n, `${at}.paths[${i}]`));
  else if (paths !== null && typeof paths === "object")
    for (const n of Object.keys(paths)) check(n, `${at}.paths.${n}`);
  else check(paths, `${at}.paths`);
  return out;
}

/** A manifest as far as semantics go. */
export interface ManifestTools {
  file: string;
  tools: readonly { name: string; inputSchema: Record<string, unknown>; semantics?: Record<string, unknown> }[];
}

/**
 * Problems of the semantics a capability's tools get: the manifest's blocks (invalid, or naming
 * arguments the tool lacks), and the config entry's blocks naming tools or arguments the manifest
 * does not have. `entryAt` is the entry's place in the config file (`capabilities[2]`), when the
 * user wrote one.
 */
export function manifestSemanticsIssues(
  manifest: ManifestTools,
  entry: { file: string; at: string; semantics?: unknown } | undefined,
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  manifest.tools.forEach((t, i) => {
    if (t.semantics === undefined) return;
    const at = `tools[${i}].semantics`;
    const bad = blockProblems(t.semantics, at);
    issues.push(
      ...(bad.length > 0 ? bad : unknownArguments(t.semantics, t.inputSchema, at)).map((p) => ({
        file: manifest.file,
        ...p,
      })),
    );
  });
  const declared = entry?.semantics;
  if (entry && declared !== null && typeof declared === "object" && !Array.isArray(declared)) {
    for (const [tool, block] of Object.entries(declared as Record<string, unknown>)) {
      const at = `${entry.at}.semantics.${tool}`;
      const t = manifest.tools.find((x) => x.name === tool);
      if (!t) {
        issues.push({
          file: entry.file,
          path: at,
          message: `the manifest ${manifest.file} has no tool ${JSON.stringify(tool)} (its tools: ${manifest.tools.map((x) => x.name).join(", ") || "none"}); use one of those names`,
        });
        continue;
      }
      if (blockProblems(block, at).length > 0) continue; // reported when the config was read
      issues.push(
        ...unknownArguments(block as Record<string, unknown>, t.inputSchema, at).map((p) => ({
          file: entry.file,
          ...p,
        })),
      );
    }
  }
  return issues;
}
