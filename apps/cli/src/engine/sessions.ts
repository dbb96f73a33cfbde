import { CliError } from "../cli/errors.js";
import type { EngineClient } from "./connect.js";

const FULL_ID = /^ses_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Full session id for an id or unique prefix; errors list what matched. */
export async function resolveSessionId(
  client: Pick<EngineClient, "listSessions">,
  prefix: string,
  hint: (words: string) => string = (w) => `palisade ${w}`,
): Promise<string> {
  const res = await client.listSessions({ limit: 1000 }, { timeoutMs: 10_000 });
  const exact = res.sessions.find((s) => s.id === prefix);
  if (exact) return exact.id;
  const matches = res.sessions.filter((s) => s.id.startsWith(prefix) || s.id.startsWith(`ses_${prefix}`));
  if (matches.length === 1) return (matches[0] as { id: string }).id;
  if (matches.length === 0) {
    // Not among the newest 1000, or an off-the-record session (never listed): the Engine decides on a full id.
    if (res.total > res.sessions.length || FULL_ID.test(prefix)) return prefix;
    throw new CliError(`no stored session id starts with '${prefix}'`, { hint: `see '${hint("sessions list")}'` });
  }
  const some = matches
    .slice(0, 5)
    .map((m) => `${m.id} (${m.title || "untitled"})`)
    .join(", ");
  throw new CliError(`'${prefix}' matches ${matches.length} sessions: ${some}`, { hint: "type more of the id" });
}
