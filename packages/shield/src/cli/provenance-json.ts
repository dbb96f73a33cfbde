/**
 * JSON (eval cases, `shield check --context`) → the session's provenance for one call: what the
 * user wrote and what the session read before it, each read with its trust.
 *
 *   "provenance": {
 *     "user": ["Mail alice@company.com about the reset flow"],
 *     "read": [{ "trust": "untrusted", "tool": "http__http_request", "location": "https://…", "content": "…" }]
 *   }
 */
import { ProvenanceIndex } from "../provenance/store.js";
import { TRUSTS, type Trust } from "../provenance/types.js";

export function provenanceFromJson(v: unknown, where: string): ProvenanceIndex {
  const at = `${where}: context.provenance`;
  if (v === null || typeof v !== "object" || Array.isArray(v))
    throw new Error(`${at} must be an object {"user": [text, ...], "read": [{"trust", "content", ...}]}`);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (k !== "user" && k !== "read") throw new Error(`${at}: unknown key "${k}" (allowed: user, read)`);
  const index = new ProvenanceIndex();
  const user = o["user"] ?? [];
  if (!Array.isArray(user) || !user.every((m) => typeof m === "string"))
    throw new Error(`${at}.user must be a list of the user's messages (strings)`);
  for (const m of user) index.addUserMessage(m);
  const read = o["read"] ?? [];
  if (!Array.isArray(read)) throw new Error(`${at}.read must be a list of {"trust", "content", "tool"?, "location"?}`);
  read.forEach((r: unknown, i) => {
    const here = `${at}.read[${i}]`;
    if (r === null || typeof r !== "object" || Array.isArray(r)) throw new Error(`${here} must be an object`);
    const e = r as Record<string, unknown>;
    const trust = e["trust"];
    if (typeof trust !== "string" || !TRUSTS.includes(trust as Trust) || trust === "user")
      throw new Error(`${here}.trust must be workspace, untrusted or secret (the user's text goes in "user")`);
    if (typeof e["content"] !== "string") throw new Error(`${here}.content must be the text the session read`);
    const tool = typeof e["tool"] === "string" ? e["tool"] : undefined;
    const location = typeof e["location"] === "string" ? e["location"] : undefined;
    index.add(e["content"], {
      trust: trust as Trust,
      source: {
        kind: "tool-result",
        callId: `read-${i + 1}`,
        ...(tool !== undefined ? { tool } : {}),
        ...(location !== undefined ? { location } : {}),
      },
    });
  });
  return index;
}
