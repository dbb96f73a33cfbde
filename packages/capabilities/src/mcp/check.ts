import type { McpCapabilityConfig } from "../config.js";
import { CapabilityHost } from "../host.js";
import type { CapabilityHostOptions } from "../host.js";
import type { CapabilityStatus } from "../runtime.js";
import type { McpServerInfo } from "./runtime.js";

/** What `palisade capability check` reports for an MCP server. */
export interface McpCheckReport {
  id: string;
  ok: boolean;
  status: CapabilityStatus;
  server?: McpServerInfo;
  tools: { name: string; description: string; policy: string; annotations: Record<string, boolean> }[];
}

/**
 * Starts one MCP server as the Engine would (secrets, wrapper, timeouts), reports its name,
 * version, capabilities and tools, and stops it.
 */
export async function checkMcpServer(
  config: McpCapabilityConfig,
  options: Pick<CapabilityHostOptions, "dataDir"> & Partial<CapabilityHostOptions>,
): Promise<McpCheckReport> {
  const host = new CapabilityHost({ startupTimeoutMs: 30_000, ...options, capabilities: [config] });
  try {
    const [status] = await host.start();
    const server = host.mcpServer(config.id);
    const tools = host.catalog().map((t) => ({
      name: t.fullName,
      description: t.description,
      policy: t.policy,
      annotations: { ...t.annotations },
    }));
    return {
      id: config.id,
      ok: status?.state === "ready",
      status: status as CapabilityStatus,
      ...(server ? { server } : {}),
      tools,
    };
  } finally {
    await host.stop();
  }
}

export function formatMcpCheck(r: McpCheckReport): string {
  if (!r.ok) return `not ok ${r.id}: ${r.status.state}: ${r.status.message}`;
  const s = r.server;
  const caps = s ? Object.keys(s.capabilities).join(", ") || "none" : "unknown";
  const lines = [
    `ok ${r.id}: MCP server ${s?.name ?? "?"} ${s?.version ?? ""}`.trimEnd(),
    `  capabilities: ${caps}`,
    `  tools (${r.tools.length}):`,
  ];
  for (const t of r.tools)
    lines.push(`    ${t.name}  [${t.policy}]${t.description ? `  ${firstLine(t.description)}` : ""}`);
  for (const w of r.status.warnings) lines.push(`  warning: ${w}`);
  return lines.join("\n");
}

function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
