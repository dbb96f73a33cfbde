/**
 * Network allowlist entries of a Selu manifest: `host`, `host:port`, `*.suffix`, each optionally with a
 * port. Hosts are DNS names or IPv4 addresses; IPv6 literals go in brackets: `[::1]:443`.
 */
const LABEL = "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?";
const NAME = new RegExp(`^${LABEL}(\\.${LABEL})*$`, "i");
const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

export interface HostEntry {
  wildcard: boolean;
  host: string;
  port?: number;
}

/** Parses one entry, or returns the reason it is invalid. */
export function parseHostEntry(entry: string): HostEntry | { error: string } {
  let rest = entry.trim();
  if (rest.includes("://"))
    return { error: `"${entry}" must be a host or host:port, not a URL (e.g. "api.example.com:443")` };
  let port: number | undefined;
  const bracket = /^\[([0-9a-f:.]+)\](?::(\d+))?$/i.exec(rest);
  if (bracket) {
    port = bracket[2] === undefined ? undefined : Number(bracket[2]);
    if (port !== undefined && !validPort(port)) return { error: `port must be 1-65535 in "${entry}"` };
    return { wildcard: false, host: bracket[1] ?? "", ...(port === undefined ? {} : { port }) };
  }
  const colon = rest.lastIndexOf(":");
  if (colon >= 0) {
    const portText = rest.slice(colon + 1);
    if (!/^\d+$/.test(portText) || !validPort(Number(portText))) return { error: `port must be 1-65535 in "${entry}"` };
    port = Number(portText);
    rest = rest.slice(0, colon);
  }
  const wildcard = rest.startsWith("*.");
  const host = wildcard ? rest.slice(2) : rest;
  if (!host) return { error: `"${entry}" has no host` };
  if (host.includes("*"))
    return { error: `"${entry}": a wildcard is only allowed as a leading "*." (e.g. "*.googleapis.com:443")` };
  if (!NAME.test(host) && !IPV4.test(host))
    return { error: `"${entry}" is not a host name, "host:port" or "*.suffix" entry` };
  return { wildcard, host: host.toLowerCase(), ...(port === undefined ? {} : { port }) };
}

function validPort(p: number): boolean {
  return Number.isInteger(p) && p >= 1 && p <= 65535;
}

/** Whether `host:port` is allowed by the entries (`*.x` matches subdomains of x, not x). */
export function hostAllowed(entries: readonly string[], host: string, port: number): boolean {
  const h = host.toLowerCase();
  return entries.some((raw) => {
    const e = parseHostEntry(raw);
    if ("error" in e) return false;
    if (e.port !== undefined && e.port !== port) return false;
    return e.wildcard ? h.endsWith(`.${e.host}`) : h === e.host;
  });
}
