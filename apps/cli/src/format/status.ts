import type { StatusResponse } from "@palisade/protocol/pipeline";
import type { EngineEndpoint } from "../engine-address.js";

export function formatDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h}h ${m % 60}m` : `${Math.floor(h / 24)}d ${h % 24}h`;
}

/** Lines describing the Engine's health; shared by `engine status` and `/status`. */
export function statusLines(s: StatusResponse): string[] {
  const lines = [
    `Engine    ${s.version || "?"} · up ${formatDuration(Number(s.uptimeMs))} · data ${s.dataDir || "?"}`,
    `Model     ${s.modelConfigured ? s.model : "not configured"}${s.baseUrl ? ` · ${s.baseUrl}` : ""}`,
    `Agent     ${s.agentConnected ? `connected (${s.agentId || "agent"})` : "not connected"}${s.agentRestarts ? ` · ${s.agentRestarts} restarts` : ""}`,
    `Shield    ${s.shieldState || "?"}${s.policyName ? ` · policy ${s.policyName}` : ""}`,
    `Sessions  ${s.activeSessions} active · ${s.totalSessions} total · ${s.actionsToday} actions today${s.runningSubAgents ? ` · ${s.runningSubAgents} sub-agents running` : ""}`,
  ];
  if (s.sandbox) {
    const sb = s.sandbox;
    const leaks = [sb.canWriteFile && "can write files", sb.canSpawnProcess && "can spawn processes", sb.canReadOutside && "can read outside its code", sb.canStartWorker && "can start workers"].filter(Boolean);
    lines.push(`Sandbox   ${leaks.length ? `WEAK: agent ${leaks.join(", ")}` : "confined"}${sb.networkIsolated ? " · no network" : ""}`);
  }
  if (s.toolSandbox) lines.push(`Tools     ${s.toolSandbox.replace(/^tool sandbox: /, "sandbox ")}`);
  if (s.capabilities.length) {
    lines.push("Capabilities");
    const width = Math.max(...s.capabilities.map((c) => c.id.length));
    for (const c of s.capabilities) {
      lines.push(`  ${c.id.padEnd(width)}  ${c.state.padEnd(14)} ${String(c.toolCount).padStart(3)} tools${c.message ? `  ${c.message}` : ""}`);
      if (c.sandbox) lines.push(`  ${" ".repeat(width)}  sandbox: ${c.sandbox}`);
    }
  } else {
    lines.push("Capabilities  none configured");
  }
  return lines;
}

export function formatStatus(s: StatusResponse, endpoint: EngineEndpoint): string {
  return [`Running   pid ${endpoint.info.pid} · ${endpoint.address} · since ${endpoint.info.startedAt}`, ...statusLines(s)].join("\n") + "\n";
}

export function statusToJson(s: StatusResponse): Record<string, unknown> {
  return {
    version: s.version,
    uptimeMs: Number(s.uptimeMs),
    model: s.model,
    modelConfigured: s.modelConfigured,
    baseUrl: s.baseUrl,
    agentConnected: s.agentConnected,
    agentRestarts: s.agentRestarts,
    shieldState: s.shieldState,
    policyName: s.policyName,
    activeSessions: s.activeSessions,
    totalSessions: s.totalSessions,
    actionsToday: s.actionsToday,
    runningSubAgents: s.runningSubAgents,
    capabilities: s.capabilities.map((c) => ({ id: c.id, state: c.state, message: c.message, launch: c.launch, toolCount: c.toolCount, sandbox: c.sandbox })),
    toolSandbox: s.toolSandbox,
    dataDir: s.dataDir,
  };
}
