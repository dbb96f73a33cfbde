/** Where each value of a call came from, in words, for the person approving it. */
import type { ArgValue, Label, Origin, Role } from "./types.js";

function clip(s: string, n = 60): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

function time(at: number | undefined): string {
  if (at === undefined) return "";
  const d = new Date(at);
  return ` at ${String(d.getUTCHours()).padStart(2, "0")}:${String(d.getUTCMinutes()).padStart(2, "0")} UTC`;
}

export function describeLabel(l: Label): string {
  const s = l.source;
  const what =
    s.kind === "user-message"
      ? "a message of the user"
      : s.kind === "sub-agent"
        ? `the result of sub-agent ${s.tool ?? "?"}`
        : `the ${s.kind === "artifact" ? "artifact" : "result"} of \`${s.tool ?? "?"}${s.location !== undefined ? ` ${clip(s.location)}` : ""}\``;
  return `${what}${s.callId !== undefined ? ` (call ${s.callId})` : ""}${time(s.at)} (${l.trust})`;
}

/** "recipient `x@y` first appeared in the result of `web__fetch https://…` at 14:03 (untrusted)". */
export function describeValues(values: readonly ArgValue[], roles: readonly Role[], from: readonly Origin[]): string {
  const lines: string[] = [];
  for (const v of values) {
    if (!roles.includes(v.role)) continue;
    for (const src of v.sources) {
      if (!from.includes(src.label.trust)) continue;
      const shown =
        src.label.trust === "secret" ? "a secret value" : `\`${clip(src.part === v.value ? v.value : src.part, 48)}\``;
      lines.push(`${v.role} ${shown} (${v.key}) first appeared in ${describeLabel(src.label)}`);
      if (lines.length >= 4) return lines.join("; ");
    }
  }
  return lines.join("; ");
}
