import type { StatusResponse } from "@palisade/protocol/pipeline";

/** Capability states in which its tools cannot be used now. */
const DOWN = new Set(["failed", "not_ready", "not_configured"]);

/**
 * What the Engine reports it cannot offer and why, in its own words: no tool sandbox (and what
 * that stops from starting), each capability that is down with its message, and each still
 * starting without tools yet (an MCP server the Engine did not wait for). Empty when all is
 * well. Shown when the chat starts (and when it changes) and in /tools.
 */
export function unavailableLines(s: StatusResponse): string[] {
  const lines: string[] = [];
  if (/UNAVAILABLE/.test(s.toolSandbox)) lines.push(s.toolSandbox);
  for (const c of s.capabilities) {
    // Turned off on purpose (enabled: false) is what the user asked for, not a problem to report.
    const disabled = c.state === "not_configured" && c.message.startsWith("disabled in config");
    // A process starting for a call has its tools listed already; a server still coming up has none.
    const coming = c.state === "starting" && c.toolCount === 0;
    if ((DOWN.has(c.state) && !disabled) || coming)
      lines.push(`capability ${c.id}: ${c.state.replace("_", " ")}${c.message ? ` (${c.message})` : ""}`);
  }
  return lines;
}
