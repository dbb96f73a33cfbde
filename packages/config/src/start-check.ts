// What an Engine start would refuse, checked without starting one and without loading the
// Engine: the Shield policy, and the declared tool semantics of every capability's manifest and
// config entry. `engine start`, `chat` and `run` call it (through @palisade/config)
// before they start an Engine, so the problems show where the user is, with file and path; the
// Engine runs the same manifest check itself.
import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { parse } from "yaml";
import { PolicyError, ShieldError, loadPolicy } from "@palisade/shield/policy";
import { builtinCapabilities } from "./builtins.js";
import { mergeCapabilities } from "./config.js";
import type { CapabilityEntry, EngineConfig } from "./config.js";
import { ConfigError } from "./errors.js";
import type { ConfigIssue } from "./errors.js";
import { manifestSemanticsIssues } from "./semantics-check.js";
import type { ManifestTools } from "./semantics-check.js";

/** Throws ConfigError (every problem with its file and path) when an Engine would not start with `config`. */
export async function checkStartFiles(config: EngineConfig, workspace: string): Promise<void> {
  try {
    await loadPolicy(config.shield.policyFile ?? config.shield.policy);
  } catch (err) {
    if (err instanceof PolicyError)
      throw new ConfigError(
        err.problems.map((p) => ({ file: p.file, path: p.path, message: p.message, line: p.line, col: p.col })),
      );
    if (err instanceof ShieldError)
      throw new ConfigError([
        {
          file: config.source ?? "config",
          path: config.shield.policyFile ? "shield.policy_file" : "shield.policy",
          message: err.message,
        },
      ]);
    throw err;
  }
  const merged = mergeCapabilities(await builtinCapabilities(workspace, () => undefined), config.capabilities);
  const issues = semanticsIssues(merged, config);
  if (issues.length > 0) throw new ConfigError(issues);
}

/**
 * The semantics problems of the capabilities `entries` (built-ins merged with the config): each
 * Selu manifest's tools, and what the config entry the user wrote declares for them. A manifest
 * that cannot be read is left to the capability's own start (it fails alone, with its reason).
 */
export function semanticsIssues(
  entries: readonly CapabilityEntry[],
  config: Pick<EngineConfig, "source" | "capabilities">,
): ConfigIssue[] {
  const configFile = config.source ?? "config";
  const baseDir = config.source ? dirname(config.source) : process.cwd();
  const issues: ConfigIssue[] = [];
  for (const e of entries) {
    if ("mcp" in e || typeof e["manifest"] !== "string") continue;
    const manifest = readManifestTools(isAbsolute(e["manifest"]) ? e["manifest"] : resolve(baseDir, e["manifest"]));
    if (!manifest) continue;
    const i = config.capabilities.findIndex((u) => u.id === e.id);
    const entry =
      i >= 0 && !manifest.dynamic
        ? { file: configFile, at: `capabilities[${i}]`, semantics: config.capabilities[i]?.["semantics"] }
        : undefined;
    issues.push(...manifestSemanticsIssues(manifest, entry));
  }
  return issues;
}

/** The tools of a manifest file (or of manifest.yaml in a directory) as far as semantics go. */
function readManifestTools(path: string): (ManifestTools & { dynamic: boolean }) | undefined {
  try {
    const file = statSync(path).isDirectory() ? join(path, "manifest.yaml") : path;
    const raw = parse(readFileSync(file, "utf8")) as { tools?: unknown; tool_source?: unknown } | null;
    const list = Array.isArray(raw?.tools) ? (raw.tools as unknown[]) : [];
    const tools = list.map((t) => {
      const o = (t !== null && typeof t === "object" ? t : {}) as Record<string, unknown>;
      const schema = o["input_schema"];
      return {
        name: typeof o["name"] === "string" ? o["name"] : "",
        inputSchema: (schema !== null && typeof schema === "object" ? schema : {}) as Record<string, unknown>,
        ...(o["semantics"] !== undefined ? { semantics: o["semantics"] as Record<string, unknown> } : {}),
      };
    });
    return { file, tools, dynamic: raw?.tool_source === "dynamic" };
  } catch {
    return undefined;
  }
}
