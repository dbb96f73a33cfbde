import { isIP } from "node:net";
import { canonicalAddress } from "./addresses.js";
import type { CanonicalAddress } from "./addresses.js";

/**
 * A destination named in a proxy request, in canonical form: a lower-case DNS name without a
 * trailing dot, or an IP address parsed to bytes (`ip`, and `host` is its canonical text).
 */
export interface Target {
  host: string;
  port: number;
  ip?: CanonicalAddress;
}

/** A target, or why the request's destination was not understood (answered with 400). */
export type ParsedTarget = { target: Target } | { error: string };

const NAME = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;
// The URL standard's rule: a host whose last label is a number is an IPv4 address (in decimal,
// octal or hex, possibly fewer than four parts), never a name to resolve.
const ENDS_IN_NUMBER = /(^|\.)(\d+|0x[0-9a-f]*)$/;

/**
 * Parses a host as written in a request into a canonical target. IPv4 in any spelling the URL
 * standard accepts (`2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`, a trailing dot) and IPv6 in any
 * textual form become their address; what is neither an address nor a plain DNS name is refused.
 */
export function parseHost(written: string, port: number): ParsedTarget {
  if (!Number.isInteger(port) || port < 1 || port > 65535) return { error: `port ${port} is out of range (1-65535)` };
  if (written.startsWith("[") && written.endsWith("]")) {
    const inner = written.slice(1, -1);
    if (inner.includes("%")) return { error: `${written} has a zone id (%…); name a public address without one` };
    const ip = canonicalAddress(inner);
    if (!ip || isIP(inner) !== 6) return { error: `${written} is not an IPv6 address` };
    return { target: { host: ip.address, port, ip } };
  }
  if (written.includes(":")) return { error: `${written}: an IPv6 address goes in brackets ([…]:port)` };
  // Characters a URL parser would read as userinfo, path or escapes are never part of a host.
  if (!/^[A-Za-z0-9._-]+$/.test(written))
    return { error: `${JSON.stringify(written)} is not a host name or IP address` };
  const lower = written.toLowerCase();
  const name = lower.endsWith(".") ? lower.slice(0, -1) : lower;
  if (ENDS_IN_NUMBER.test(name)) {
    let hostname: string;
    try {
      hostname = new URL(`http://${name}/`).hostname;
    } catch {
      return { error: `${written} is not a valid IPv4 address` };
    }
    const ip = canonicalAddress(hostname);
    if (!ip) return { error: `${written} is not a valid IPv4 address` };
    return { target: { host: ip.address, port, ip } };
  }
  if (name.length === 0 || name.length > 253 || !NAME.test(name))
    return { error: `${JSON.stringify(written)} is not a valid host name` };
  return { target: { host: name, port } };
}

/** Parses `host:port` / `[v6]:port` of a CONNECT request. */
export function parseAuthority(authority: string): ParsedTarget {
  const m = /^(\[[^\]]*\]|[^:[\]]*):(\d{1,5})$/.exec(authority);
  if (!m) return { error: `CONNECT needs host:port (or [IPv6]:port), got ${JSON.stringify(authority)}` };
  return parseHost(m[1] ?? "", Number(m[2]));
}

/** Parses the absolute `http://host[:port]/path` of a forward request. */
export function parseForwardUrl(url: string): { target: Target; path: string } | { error: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { error: "this proxy forwards absolute http:// URLs; use CONNECT (HTTPS_PROXY) for https" };
  }
  if (parsed.protocol !== "http:")
    return { error: `this proxy forwards http:// URLs, got ${parsed.protocol}; use CONNECT (HTTPS_PROXY) for https` };
  if (parsed.username || parsed.password) return { error: "a forwarded URL carries no user name or password" };
  const result = parseHost(parsed.hostname, parsed.port ? Number(parsed.port) : 80);
  return "error" in result ? result : { target: result.target, path: `${parsed.pathname}${parsed.search}` };
}

/** The Host header for `target`: what was checked, never what the client sent. */
export function hostHeader(target: Target): string {
  const host = target.ip?.family === 6 ? `[${target.host}]` : target.host;
  return target.port === 80 ? host : `${host}:${target.port}`;
}
