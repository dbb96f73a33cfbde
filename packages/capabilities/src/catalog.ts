import { CapabilityError } from "./errors.js";
import { argumentProblems as formatArgumentProblems } from "@palisade/schema";
import { compileToolSchema } from "./json-schema.js";
import { TOOL_NAME_PATTERN } from "./manifest/schema.js";
import { isManifestPolicy } from "@palisade/protocol/policy";
import type { ManifestPolicy } from "@palisade/protocol/policy";
import type { Manifest, ManifestTool, NetworkPolicy } from "./manifest/types.js";

/** A tool as the Engine and the model see it. */
export interface ToolEntry {
  /** `<capability_id>__<tool>`: the name the model calls. */
  fullName: string;
  capabilityId: string;
  capabilityClass: Manifest["class"];
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Default policy for the Shield's tier 0: recommended_policy, else ask if requires_confirmation, else block. */
  policy: ManifestPolicy;
  requiresConfirmation: boolean;
  /** End the agent's turn after a successful call (not after a failed one). */
  terminalOnSuccess: boolean;
  /** Called with StreamInvoke, its chunks shown as progress; other tools with Invoke. */
  streaming: boolean;
  network: NetworkPolicy;
  filesystem: Manifest["filesystem"];
  /** What the tool says about itself (MCP tool annotations); hints from the server, not facts. */
  annotations?: ToolAnnotations;
  /** Declared semantics for the Shield (manifest or discovery), when given. */
  semantics?: Record<string, unknown>;
}

/** MCP's tool annotations, as hints the Shield's defaults may use. */
export interface ToolAnnotations {
  readOnly?: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  openWorld?: boolean;
}

export const NAME_SEPARATOR = "__";

export function defaultPolicy(tool: Pick<ManifestTool, "recommendedPolicy" | "requiresConfirmation">): ManifestPolicy {
  return tool.recommendedPolicy ?? (tool.requiresConfirmation ? "ask" : "block");
}

export function fullToolName(capabilityId: string, tool: string): string {
  return `${capabilityId}${NAME_SEPARATOR}${tool}`;
}

export function toolEntries(manifest: Manifest, tools: readonly ManifestTool[] = manifest.tools): ToolEntry[] {
  return tools.map((t) => ({
    fullName: fullToolName(manifest.id, t.name),
    capabilityId: manifest.id,
    capabilityClass: manifest.class,
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema,
    policy: defaultPolicy(t),
    requiresConfirmation: t.requiresConfirmation,
    terminalOnSuccess: t.terminalOnSuccess,
    streaming: t.streaming,
    network: manifest.network,
    filesystem: manifest.filesystem,
    ...(t.semantics !== undefined ? { semantics: t.semantics } : {}),
  }));
}

/**
 * Tool entries with the `semantics:` blocks of the capability's config entry (by tool name) in
 * place of the manifest's or the server's: the user's word on what a tool's arguments mean wins.
 */
export function withConfigSemantics(
  entries: ToolEntry[],
  semantics: Readonly<Record<string, Record<string, unknown>>> | undefined,
): ToolEntry[] {
  if (semantics === undefined) return entries;
  return entries.map((e) => {
    const declared = Object.hasOwn(semantics, e.name) ? semantics[e.name] : undefined;
    return declared === undefined ? e : { ...e, semantics: declared };
  });
}

/**
 * Finds a tool by full name, or by bare name when exactly one capability has it.
 * Throws `unknown_tool` / `ambiguous_tool` with the names the model could use instead.
 */
export function resolveTool(entries: readonly ToolEntry[], name: string): ToolEntry {
  const exact = entries.find((e) => e.fullName === name);
  if (exact) return exact;
  const bare = entries.filter((e) => e.name === name);
  if (bare.length === 1 && bare[0]) return bare[0];
  if (bare.length > 1) {
    throw new CapabilityError(
      "ambiguous_tool",
      `tool name "${name}" is ambiguous: use one of ${bare.map((e) => e.fullName).join(", ")}`,
    );
  }
  const known = entries.map((e) => e.fullName);
  const hint =
    known.length === 0
      ? "no capability tools are loaded"
      : `available tools: ${known.slice(0, 20).join(", ")}${known.length > 20 ? ", …" : ""}`;
  throw new CapabilityError("unknown_tool", `unknown tool "${name}": ${hint}`);
}

/**
 * Parses what a discovery tool returned: a JSON array of
 * `{name, description, input_schema, recommended_policy?, requires_confirmation?, terminal_on_success?, streaming?}`.
 * Empty or duplicate names and invalid schemas are errors (all of them listed).
 */
export function parseDiscoveredTools(result: unknown, source: string): ManifestTool[] {
  if (!Array.isArray(result)) {
    throw new CapabilityError("discovery", `${source} must return a JSON array of tools, got ${describe(result)}`);
  }
  const problems: string[] = [];
  const tools: ManifestTool[] = [];
  const seen = new Set<string>();
  const namePattern = new RegExp(TOOL_NAME_PATTERN);
  result.forEach((item, i) => {
    const at = `[${i}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      problems.push(`${at}: must be an object, got ${describe(item)}`);
      return;
    }
    const t = item as Record<string, unknown>;
    const name = t.name;
    if (typeof name !== "string" || name === "") problems.push(`${at}.name: must be a non-empty string`);
    else if (!namePattern.test(name))
      problems.push(`${at}.name: "${name}" must be letters, digits, _ and - (at most 64)`);
    else if (seen.has(name)) problems.push(`${at}.name: duplicate tool name "${name}"`);
    if (typeof t.description !== "string") problems.push(`${at}.description: must be a string`);
    const schema = t.input_schema;
    if (typeof schema !== "object" || schema === null || Array.isArray(schema))
      problems.push(`${at}.input_schema: must be a JSON Schema object`);
    else {
      try {
        compileToolSchema(schema as Record<string, unknown>);
      } catch (err) {
        problems.push(
          `${at}.input_schema: is not a valid JSON Schema: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
    }
    const policy = t.recommended_policy;
    if (policy !== undefined && !isManifestPolicy(policy)) {
      problems.push(`${at}.recommended_policy: must be "allow", "ask" or "block" (got ${JSON.stringify(policy)})`);
    }
    if (typeof name === "string" && name !== "") seen.add(name);
    tools.push({
      name: String(name),
      description: typeof t.description === "string" ? t.description : "",
      inputSchema: schema as Record<string, unknown>,
      requiresConfirmation: t.requires_confirmation === true,
      ...(policy === undefined ? {} : { recommendedPolicy: policy as ManifestPolicy }),
      terminalOnSuccess: t.terminal_on_success === true,
      streaming: t.streaming === true,
      ...(t.semantics !== null && typeof t.semantics === "object" && !Array.isArray(t.semantics)
        ? { semantics: t.semantics as Record<string, unknown> }
        : {}),
    });
  });
  if (problems.length > 0)
    throw new CapabilityError("discovery", `${source} returned invalid tools:\n  - ${problems.join("\n  - ")}`);
  return tools;
}

/** Validates the arguments of a call of `tool`; returns @palisade/schema's message for each bad field (empty when valid). */
export function argumentProblems(tool: string, schema: Record<string, unknown>, args: unknown): string[] {
  const validate = compileCached(schema);
  if (validate(args)) return [];
  return formatArgumentProblems(tool, validate.errors);
}

const compiled = new WeakMap<object, ReturnType<typeof compileToolSchema>>();
function compileCached(schema: Record<string, unknown>): ReturnType<typeof compileToolSchema> {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = compileToolSchema(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `${typeof v} ${JSON.stringify(v)}`;
}
