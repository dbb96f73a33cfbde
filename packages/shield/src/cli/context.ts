/** JSON (CLI, eval files) → ShieldContext. Accepts snake_case and camelCase keys. */
import { isManifestPolicy } from "@palisade/protocol/policy";
import type { NetworkPolicy, SessionMode, ShieldContext } from "../types.js";
import { provenanceFromJson } from "./provenance-json.js";

export function contextFromJson(v: unknown, where: string): ShieldContext {
  if (v === undefined || v === null) return {};
  if (typeof v !== "object" || Array.isArray(v)) throw new Error(`${where}: context must be a JSON object`);
  const o = v as Record<string, unknown>;
  const str = (...keys: string[]): string | undefined => {
    for (const k of keys) if (typeof o[k] === "string") return o[k];
    return undefined;
  };
  const ctx: ShieldContext = {};
  const mode = str("mode");
  if (mode !== undefined) {
    if (!["normal", "otr", "heartbeat"].includes(mode))
      throw new Error(`${where}: context.mode must be normal, otr or heartbeat`);
    ctx.mode = mode as SessionMode;
  }
  const sub = o["sub_agent"] ?? o["subAgent"];
  if (typeof sub === "string") ctx.subAgent = sub;
  else if (sub === true) ctx.subAgent = "sub-agent";
  const mp = str("manifest_policy", "manifestPolicy");
  if (mp !== undefined) {
    if (!isManifestPolicy(mp)) throw new Error(`${where}: context.manifest_policy must be allow, ask or block`);
    ctx.manifestPolicy = mp;
  }
  const net = o["network"];
  if (net !== undefined) {
    const n = net as Record<string, unknown>;
    if (typeof n !== "object" || !["none", "allowlist", "any"].includes(String(n["mode"])))
      throw new Error(`${where}: context.network must be {"mode": "none"|"allowlist"|"any", "allow": [...]}`);
    ctx.network = {
      mode: n["mode"] as NetworkPolicy["mode"],
      allow: Array.isArray(n["allow"]) ? n["allow"].map(String) : [],
    };
  }
  const ws = str("workspace");
  if (ws !== undefined) ctx.workspace = ws;
  const home = str("home");
  if (home !== undefined) ctx.home = home;
  const sid = str("session_id", "sessionId");
  if (sid !== undefined) ctx.sessionId = sid;
  if (o["provenance"] !== undefined) ctx.provenance = provenanceFromJson(o["provenance"], where);
  return ctx;
}
