import { isIP } from "node:net";

/** A destination named in a proxy request. */
export interface Target {
  host: string;
  port: number;
}

/** Parses `host:port` / `[v6]:port` of a CONNECT request; undefined when malformed. */
export function parseAuthority(authority: string): Target | undefined {
  const m = /^\[([0-9a-fA-F:.]+)\]:(\d{1,5})$/.exec(authority) ?? /^([^:[\]\s/]+):(\d{1,5})$/.exec(authority);
  if (!m) return undefined;
  return normalize(m[1] ?? "", Number(m[2]));
}

/** Parses the absolute `http://host[:port]/path` of a forward request; undefined otherwise. */
export function parseForwardUrl(url: string): { target: Target; path: string } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "http:" || parsed.username || parsed.password) return undefined;
  const host = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname;
  const target = normalize(host, parsed.port ? Number(parsed.port) : 80);
  return target ? { target, path: `${parsed.pathname}${parsed.search}` } : undefined;
}

function normalize(host: string, port: number): Target | undefined {
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  const h = host.toLowerCase().replace(/\.$/, "");
  if (h === "" || (isIP(h) === 0 && !/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(h))) return undefined;
  return { host: h, port };
}
