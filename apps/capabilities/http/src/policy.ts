import { ToolError } from "@palisade/capability-sdk";

export type NetworkMode = "none" | "allowlist" | "any";

/** The http capability's network policy, from config_json `network`. */
export interface NetworkPolicy {
  mode: NetworkMode;
  /** For "allowlist": "host", "host:port", "*.suffix" or "*.suffix:port". */
  allow: string[];
  /**
   * Non-public addresses (loopback, private, link-local, ...) that may be reached: `true` for all,
   * or a list of exact IPs (e.g. a local model server at 127.0.0.1). Default none.
   */
  allowPrivate: boolean | string[];
}

/** Without configuration: any public host, nothing private. */
export const DEFAULT_POLICY: NetworkPolicy = { mode: "any", allow: [], allowPrivate: false };

/** Reads config_json `{"network": {"mode", "allow", "allow_private"}}`; `hosts` is accepted for `allow` as in Selu manifests. */
export function policyFromConfig(config: Record<string, unknown>): NetworkPolicy {
  const raw = config.network;
  if (raw === undefined || raw === null) return DEFAULT_POLICY;
  if (typeof raw !== "object" || Array.isArray(raw)) throw configError("network must be an object");
  const net = raw as Record<string, unknown>;
  const mode = net.mode ?? "any";
  if (mode !== "none" && mode !== "allowlist" && mode !== "any")
    throw configError(`network.mode must be "none", "allowlist" or "any", got ${JSON.stringify(mode)}`);
  const list = net.allow ?? net.hosts ?? [];
  if (!Array.isArray(list) || list.some((x) => typeof x !== "string"))
    throw configError("network.allow must be a list of host patterns");
  const ap = net.allow_private ?? false;
  if (typeof ap !== "boolean" && !(Array.isArray(ap) && ap.every((x) => typeof x === "string"))) {
    throw configError("network.allow_private must be true, false or a list of IP addresses");
  }
  const allowPrivate =
    typeof ap === "boolean"
      ? ap
      : ap.map((x) =>
          x
            .trim()
            .toLowerCase()
            .replace(/^\[|\]$/g, ""),
        );
  return { mode, allow: (list as string[]).map((s) => s.trim().toLowerCase()), allowPrivate };
}

/** Whether the non-public `address` may be reached under the policy. */
export function privateAllowed(policy: NetworkPolicy, address: string): boolean {
  return (
    policy.allowPrivate === true ||
    (Array.isArray(policy.allowPrivate) && policy.allowPrivate.includes(address.toLowerCase()))
  );
}

function configError(what: string): ToolError {
  return new ToolError(`invalid http capability configuration: ${what}`, { code: "invalid_config" });
}

/** Whether `host` (lowercase, IPv6 without brackets) on `port` passes the allowlist part of the policy. */
export function hostAllowed(policy: NetworkPolicy, host: string, port: number): boolean {
  if (policy.mode === "none") return false;
  if (policy.mode === "any") return true;
  return policy.allow.some((entry) => entryMatches(entry, host, port));
}

function entryMatches(entry: string, host: string, port: number): boolean {
  let pattern = entry;
  let wantPort: number | undefined;
  const m = /^(.*?):(\d+)$/.exec(entry);
  if (m && !entry.endsWith("]") && (m[1]?.split(":").length ?? 0) === 1) {
    pattern = m[1] ?? "";
    wantPort = Number(m[2]);
  } else if (/^\[.*\]:\d+$/.test(entry)) {
    const close = entry.lastIndexOf("]");
    pattern = entry.slice(1, close);
    wantPort = Number(entry.slice(close + 2));
  }
  pattern = pattern.replace(/^\[|\]$/g, "");
  if (wantPort !== undefined && wantPort !== port) return false;
  if (pattern.startsWith("*.")) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  return host === pattern;
}
