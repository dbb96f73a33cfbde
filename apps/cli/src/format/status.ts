import { existsSync } from "node:fs";
import type { AgentConfinement, SandboxReport, StatusResponse } from "@palisade/protocol/pipeline";
import type { EngineEndpoint } from "../engine-address.js";

export function formatDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h}h ${m % 60}m` : `${Math.floor(h / 24)}d ${h % 24}h`;
}

/**
 * Lines describing the Engine's health; shared by `engine status` and `/status`. `configPresent`:
 * whether the Engine's config file exists now (a missing one is not "unchanged").
 */
export function statusLines(s: StatusResponse, configPresent = true): string[] {
  const lines = [
    `Engine    ${s.version || "?"} · up ${formatDuration(Number(s.uptimeMs))} · data ${s.dataDir || "?"}`,
    `Model     ${s.modelConfigured ? s.model : "not configured"}${s.baseUrl ? ` · ${s.baseUrl}` : ""}`,
    `Agent     ${s.agentConnected ? `connected (${s.agentId || "agent"})` : s.agentState === "idle" ? "stopped while idle (starts with the next message)" : "not connected"}${s.agentRestarts ? ` · ${s.agentRestarts} restarts` : ""}`,
    `Shield    ${s.shieldState || "?"}${s.policyName ? ` · policy ${s.policyName}` : ""}`,
    `Sessions  ${s.activeSessions} active · ${s.totalSessions} total · ${s.actionsToday} actions today${s.runningSubAgents ? ` · ${s.runningSubAgents} sub-agents running` : ""}`,
  ];
  if (s.store) lines.push(`History   ${s.store}`);
  if (s.configFile) {
    const state = s.configChanged
      ? "CHANGED since the Engine started (it keeps what it read then)"
      : configPresent
        ? "unchanged since the Engine started"
        : "does not exist (the Engine runs with its built-in defaults and the environment)";
    lines.push(`Config    ${s.configFile} · ${state}`);
  }
  if (s.sandbox) {
    const sb = s.sandbox;
    const leaks = [
      sb.canWriteFile && "can write files",
      sb.canSpawnProcess && "can spawn processes",
      sb.canReadOutside && "can read outside its code",
      sb.canStartWorker && "can start workers",
    ].filter(Boolean);
    const probes = leaks.length
      ? `WEAK: agent ${leaks.join(", ")}`
      : "confined (the Agent's probes could not write, spawn, read outside its code or start workers)";
    // The network claim comes from agent_confinement (checked in /proc), not from the Agent's word.
    lines.push(
      `Sandbox   ${probes}${!s.agentConfinement && sb.networkIsolated ? " · no network interface (its own report)" : ""}`,
    );
  }
  if (s.agentConfinement) lines.push(...confinementLines(s.agentConfinement));
  if (s.toolSandbox) lines.push(`Tools     ${s.toolSandbox.replace(/^tool sandbox: /, "sandbox ")}`);
  if (s.capabilities.length) {
    lines.push("Capabilities");
    const width = Math.max(...s.capabilities.map((c) => c.id.length));
    for (const c of s.capabilities) {
      lines.push(
        `  ${c.id.padEnd(width)}  ${c.state.padEnd(14)} ${String(c.toolCount).padStart(3)} tools${c.message ? `  ${c.message}` : ""}`,
      );
      if (c.process)
        lines.push(
          `  ${" ".repeat(width)}  process: ${processText(c.process, c.pid)}${c.restarts ? ` · ${c.restarts} restart${c.restarts === 1 ? "" : "s"}` : ""}`,
        );
      for (const i of c.instances)
        lines.push(`  ${" ".repeat(width)}  for workspace ${i.workspace}: ${processText(i.process, i.pid)}`);
      if (c.sandbox) lines.push(`  ${" ".repeat(width)}  sandbox: ${c.sandbox}`);
    }
  } else {
    lines.push("Capabilities  none configured");
  }
  return lines;
}

/** Paths with packages under a node_modules folded into one line per folder. */
function groupPaths(paths: readonly string[]): string[] {
  const plain: string[] = [];
  const modules = new Map<string, string[]>();
  for (const p of paths) {
    const at = p.indexOf("/node_modules/");
    if (at < 0) plain.push(p);
    else {
      const dir = p.slice(0, at + "/node_modules/".length);
      modules.set(dir, [...(modules.get(dir) ?? []), p.slice(dir.length)]);
    }
  }
  const folded = [...modules].map(
    ([dir, names]) =>
      `${dir}: ${names.length} package${names.length === 1 ? "" : "s"} (${names.slice(0, 4).join(", ")}${names.length > 4 ? ", …" : ""})`,
  );
  return [...plain, ...folded];
}

/** The Agent's network, permission model and filesystem view, as the Engine knows them. */
export function confinementLines(c: AgentConfinement): string[] {
  const lines = [
    `  network      ${c.network || "?"}`,
    `  permissions  ${c.permissionModel ? "Node permission model on: no file writes, no child processes, no workers, no native addons" : "Node permission model OFF"}`,
  ];
  if (c.fsRead.length === 0 && c.fsWrite.length === 0) {
    lines.push(
      `  filesystem   ${c.permissionModel ? "not launched by this Engine (an external Agent): its grants are unknown" : "everything the user can read and write"}`,
    );
  } else {
    lines.push(
      `  filesystem   reads only its code (${c.fsRead.length} path${c.fsRead.length === 1 ? "" : "s"}; --json lists them), writes ${c.fsWrite.length ? c.fsWrite.join(", ") : "nothing"}:`,
    );
    for (const p of groupPaths(c.fsRead)) lines.push(`                 ${p}`);
  }
  if (c.process) lines.push(`  process      ${c.process}`);
  return lines;
}

/** "started (pid 123)", "stopped (starts on its next call)", "starting". */
export function processText(state: string, pid?: number): string {
  if (state === "started") return pid ? `started (pid ${pid})` : "started";
  if (state === "stopped") return "stopped (starts on its next call)";
  return state;
}

/** A capability's status as JSON (engine status --json, capability list --json). */
export function capabilityStatusJson(c: StatusResponse["capabilities"][number]): Record<string, unknown> {
  return {
    id: c.id,
    state: c.state,
    message: c.message,
    launch: c.launch,
    toolCount: c.toolCount,
    sandbox: c.sandbox,
    ...(c.process ? { process: c.process } : {}),
    ...(c.pid ? { pid: c.pid } : {}),
    restarts: c.restarts,
    ...(c.workspace ? { workspace: c.workspace } : {}),
    ...(c.instances.length > 0
      ? {
          instances: c.instances.map((i) => ({
            workspace: i.workspace,
            state: i.state,
            process: i.process,
            ...(i.pid ? { pid: i.pid } : {}),
            message: i.message,
          })),
        }
      : {}),
  };
}

export function formatStatus(s: StatusResponse, endpoint: EngineEndpoint): string {
  return (
    [
      `Running   pid ${endpoint.info.pid} · ${endpoint.address} · since ${endpoint.info.startedAt}`,
      ...statusLines(s, !s.configFile || existsSync(s.configFile)),
    ].join("\n") + "\n"
  );
}

function sandboxJson(r: SandboxReport): Record<string, unknown> {
  const { canWriteFile, canSpawnProcess, canReadOutside, canStartWorker, permissionModel, networkIsolated, detail } = r;
  return { canWriteFile, canSpawnProcess, canReadOutside, canStartWorker, permissionModel, networkIsolated, detail };
}

export function statusToJson(s: StatusResponse): Record<string, unknown> {
  return {
    version: s.version,
    uptimeMs: Number(s.uptimeMs),
    model: s.model,
    modelConfigured: s.modelConfigured,
    baseUrl: s.baseUrl,
    agentConnected: s.agentConnected,
    agentState: s.agentState,
    agentRestarts: s.agentRestarts,
    shieldState: s.shieldState,
    policyName: s.policyName,
    activeSessions: s.activeSessions,
    totalSessions: s.totalSessions,
    actionsToday: s.actionsToday,
    runningSubAgents: s.runningSubAgents,
    capabilities: s.capabilities.map(capabilityStatusJson),
    toolSandbox: s.toolSandbox,
    dataDir: s.dataDir,
    store: s.store,
    configFile: s.configFile,
    configChanged: s.configChanged,
    ...(s.sandbox ? { sandboxReport: sandboxJson(s.sandbox) } : {}),
    ...(s.agentConfinement
      ? {
          agentConfinement: {
            network: s.agentConfinement.network,
            permissionModel: s.agentConfinement.permissionModel,
            fsRead: s.agentConfinement.fsRead,
            fsWrite: s.agentConfinement.fsWrite,
            process: s.agentConfinement.process,
          },
        }
      : {}),
  };
}
