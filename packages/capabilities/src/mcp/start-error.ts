/**
 * Why a server could not be started or reached, from the SDK's error: the HTTP status and the
 * server's own words when there are some, and the cause when the SDK wrapped it (e.g. inside
 * "Version negotiation failed").
 */
export function describeStartError(err: unknown, redact: (t: string) => string): string {
  const parts: string[] = [];
  let status: number | undefined;
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (!parts.some((p) => p.includes(e instanceof Error ? e.message : ""))) parts.push(e.message);
    status ??= httpStatus(e);
  }
  if (parts.length === 0) parts.push(String(err));
  const text = redact(parts.join(": "));
  return status !== undefined && !text.includes(String(status)) ? `HTTP ${status}: ${text}` : text;
}

function httpStatus(e: Error): number | undefined {
  const data = (e as { data?: unknown }).data;
  const s = typeof data === "object" && data !== null ? (data as { status?: unknown }).status : undefined;
  return typeof s === "number" ? s : undefined;
}
