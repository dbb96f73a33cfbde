/** Small text helpers shared by the widgets. */

export function truncate(s: string, max: number): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length <= max ? one : `${one.slice(0, Math.max(0, max - 1))}…`;
}

function valueText(v: unknown): string {
  if (typeof v === "string") return /[\s=]/.test(v) || v === "" ? JSON.stringify(v) : v;
  return JSON.stringify(v) ?? String(v);
}

/** The first few arguments as `key=value`, for a one-line card header. */
export function keyArgs(argumentsJson: string, maxLen = 60): string {
  if (!argumentsJson) return "";
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsJson);
  } catch {
    return truncate(argumentsJson, maxLen);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    return truncate(valueText(parsed), maxLen);
  const parts = Object.entries(parsed as Record<string, unknown>).map(([k, v]) => `${k}=${truncate(valueText(v), 40)}`);
  return truncate(parts.join(" "), maxLen);
}

export function prettyJson(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)}m ${Math.round((ms % 60_000) / 1000)}s`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} kB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function formatTokens(n: number): string {
  return n < 1000 ? String(n) : `${(n / 1000).toFixed(1)}k`;
}

export function relativeTime(ms: number, now: number): string {
  const d = Math.max(0, now - ms);
  if (d < 60_000) return "just now";
  if (d < 3_600_000) return `${Math.floor(d / 60_000)} min ago`;
  if (d < 86_400_000) return `${Math.floor(d / 3_600_000)} h ago`;
  if (d < 7 * 86_400_000) return `${Math.floor(d / 86_400_000)} d ago`;
  return new Date(ms).toISOString().slice(0, 10);
}
