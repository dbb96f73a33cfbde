import type { Client, Tool } from "@modelcontextprotocol/client";
import { fullToolName } from "../catalog.js";
import type { ToolAnnotations, ToolEntry } from "../catalog.js";
import { compileToolSchema } from "../json-schema.js";
import { TOOL_NAME_PATTERN } from "../manifest/schema.js";
import type { ManifestPolicy } from "@palisade/protocol/policy";
import type { NetworkPolicy } from "../manifest/types.js";
import type { McpCapabilityConfig } from "../config.js";

/** A server listing more pages or tools than this is cut off (and says so in the status). */
export const MAX_TOOL_PAGES = 100;
export const MAX_TOOLS = 1000;

/** tools/list, every page. */
export async function listAllTools(
  client: Client,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<{ tools: Tool[]; truncated: boolean }> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const res = await client.listTools(cursor === undefined ? {} : { cursor }, { signal, timeout: timeoutMs });
    tools.push(...res.tools);
    if (tools.length > MAX_TOOLS) return { tools: tools.slice(0, MAX_TOOLS), truncated: true };
    cursor = res.nextCursor;
    if (cursor === undefined || cursor === "") return { tools, truncated: false };
  }
  return { tools, truncated: true };
}

export function annotationsOf(tool: Tool): ToolAnnotations {
  const a = tool.annotations ?? {};
  return {
    ...(typeof a.readOnlyHint === "boolean" ? { readOnly: a.readOnlyHint } : {}),
    ...(typeof a.destructiveHint === "boolean" ? { destructive: a.destructiveHint } : {}),
    ...(typeof a.idempotentHint === "boolean" ? { idempotent: a.idempotentHint } : {}),
    ...(typeof a.openWorldHint === "boolean" ? { openWorld: a.openWorldHint } : {}),
  };
}

/**
 * The Shield's default for an MCP tool. Annotations are the server's own claims, so they count
 * only for a server the config marks `trusted: true`: there a read-only tool may run (the
 * Shield's detectors still judge every call). Everything else asks unless a policy rule decides,
 * since a tool's "read-only" from an untrusted server is not evidence (and MCP's own default for a
 * tool without annotations is "may destroy"). A config `policy` entry for the tool wins.
 */
export function mcpPolicy(a: ToolAnnotations, configured?: ManifestPolicy, trusted = false): ManifestPolicy {
  if (configured) return configured;
  if (trusted && a.readOnly === true) return "allow";
  return "ask";
}

/**
 * What the server may reach: the config's `network`, else none for a stdio server and the
 * endpoint's host for an HTTP one.
 */
export function networkOf(config: McpCapabilityConfig): NetworkPolicy {
  if (config.network) return { mode: config.network.mode, hosts: config.network.hosts ?? [] };
  if ("url" in config.mcp) return { mode: "allowlist", hosts: [new URL(config.mcp.url).host] };
  return { mode: "none", hosts: [] };
}

export interface CatalogResult {
  entries: ToolEntry[];
  /** Tools left out, with why (bad name, bad schema). */
  skipped: string[];
}

/**
 * ToolEntries of a server's tools; tools the catalog cannot hold are skipped with a reason.
 * `redact` is applied to descriptions and schemas, which reach the model.
 */
export function mcpToolEntries(
  config: McpCapabilityConfig,
  tools: readonly Tool[],
  redact: (text: string) => string = (t) => t,
): CatalogResult {
  const namePattern = new RegExp(TOOL_NAME_PATTERN);
  const seen = new Set<string>();
  const entries: ToolEntry[] = [];
  const skipped: string[] = [];
  for (const tool of tools) {
    if (!namePattern.test(tool.name)) {
      skipped.push(`${JSON.stringify(tool.name)}: tool names must be letters, digits, _ and - (at most 64)`);
      continue;
    }
    if (seen.has(tool.name)) {
      skipped.push(`${tool.name}: listed twice`);
      continue;
    }
    const rawSchema = JSON.stringify(tool.inputSchema);
    const cleanSchema = redact(rawSchema);
    const schema = (cleanSchema === rawSchema ? tool.inputSchema : JSON.parse(cleanSchema)) as Record<string, unknown>;
    try {
      compileToolSchema(schema);
    } catch (err) {
      skipped.push(
        `${tool.name}: its input schema is not a valid JSON Schema (${err instanceof Error ? err.message : String(err)})`,
      );
      continue;
    }
    seen.add(tool.name);
    const annotations = annotationsOf(tool);
    entries.push({
      fullName: fullToolName(config.id, tool.name),
      capabilityId: config.id,
      capabilityClass: "tool",
      name: tool.name,
      description: redact(tool.description ?? tool.annotations?.title ?? tool.title ?? ""),
      inputSchema: schema,
      policy: mcpPolicy(annotations, config.mcp.policy?.[tool.name], config.mcp.trusted === true),
      requiresConfirmation: false,
      terminalOnSuccess: false,
      // Progress notifications are shown like StreamInvoke chunks.
      streaming: true,
      network: networkOf(config),
      filesystem: config.filesystem ?? "workspace",
      annotations,
    });
  }
  return { entries, skipped };
}
