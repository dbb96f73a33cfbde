import type { Subject, UrlRef } from "../normalize/subject.js";
import { provenanceView } from "../provenance/attach.js";
import type { Detector } from "./types.js";

const METADATA_HOSTS =
  /^(169\.254\.169\.254|169\.254\.170\.2|169\.254\.169\.123|fd00:ec2::254|100\.100\.100\.200|metadata\.google\.internal|metadata\.goog|metadata|metadata\.azure\.com|instance-data(\.ec2\.internal)?|192\.0\.0\.192)$/;
const METADATA_PATHS =
  /^\/(latest\/(meta-data|user-data|api\/token|dynamic)|computemetadata\/|metadata\/(instance|identity)|opc\/v[12]\/|openstack\/|v1\/credentials)/i;
const REBINDING =
  /(^|\.)(nip\.io|sslip\.io|xip\.io|localtest\.me|lvh\.me|vcap\.me|lacolhost\.com|1u\.ms|rbndr\.us|localh\.st|traefik\.me|fbi\.com|127-0-0-1\.org\.uk)$/;

function ipv4(host: string): number[] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  return m === null ? undefined : [1, 2, 3, 4].map((i) => Number(m[i]));
}

/** The user's own messages hold this host (and port), as written. */
function userNamed(s: Subject, hostPort: string): boolean {
  const view = provenanceView(s);
  const want = hostPort.toLowerCase();
  return view !== undefined && view.userMessages().some((m) => m.toLowerCase().includes(want));
}

/** loopback | private | link-local | undefined (public or a name) */
export function internalKind(host: string): "loopback" | "private" | "link-local" | undefined {
  let h = host.toLowerCase();
  const mapped = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/.exec(h);
  if (mapped !== null) {
    if (mapped[1] !== undefined) h = mapped[1];
    else {
      const hi = parseInt(mapped[2] ?? "0", 16);
      const lo = parseInt(mapped[3] ?? "0", 16);
      h = `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
    }
  }
  const v4 = ipv4(h);
  if (v4 !== undefined) {
    const [a = 0, b = 0] = v4;
    if (a === 127 || a === 0) return "loopback";
    if (
      a === 10 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 198 && (b === 18 || b === 19))
    )
      return "private";
    if (a === 169 && b === 254) return "link-local";
    return undefined;
  }
  if (
    h === "localhost" ||
    h.endsWith(".localhost") ||
    h === "::1" ||
    h === "::" ||
    h === "0:0:0:0:0:0:0:1" ||
    h === "ip6-localhost"
  )
    return "loopback";
  if (/^f[cd][0-9a-f]{2}:/.test(h)) return "private";
  if (/^fe[89ab][0-9a-f]:/.test(h)) return "link-local";
  if (
    /\.(internal|local|lan|corp|intranet|home\.arpa|localdomain|home|private)$/.test(h) ||
    (!h.includes(".") && !h.includes(":") && h.length > 0)
  )
    return "private";
  return undefined;
}

/** Hosts written in a form meant to slip past naive checks: decimal/hex/octal IPs, userinfo tricks. */
function obfuscatedHost(u: UrlRef): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(u.raw);
  const authority = m?.[1] ?? "";
  const host = authority
    .replace(/^.*@/, "")
    .replace(/:\d*$/, "")
    .replace(/^\[|\]$/g, "");
  // the numeric and percent-encoding checks all need a digit or a "%": most hosts are names
  const digits = /[0-9%]/.test(host);
  if (
    digits &&
    (/^\d{8,10}$/.test(host) ||
      /(^|\.)0x[0-9a-f]+(\.|$)/i.test(host) ||
      /^0\d+(\.|$)/.test(host) ||
      (/(^|\.)0\d+(\.|$)/.test(host) && /^[\d.x]+$/i.test(host)))
  )
    return `numeric host ${host}`;
  if (digits && /^\d+\.\d+$|^\d+\.\d+\.\d+$/.test(host)) return `short-form IP ${host}`;
  if (authority.includes("@") && /\./.test(authority.split("@")[0] ?? ""))
    return `credentials-before-host trick ${authority}`;
  if (digits && /%[0-9a-f]{2}/i.test(host)) return `percent-encoded host ${host}`;
  return undefined;
}

const toolUrl = (u: UrlRef): boolean => u.key !== "command";

/**
 * Ports web frameworks serve their development server on by default (Next.js, Express, Rails,
 * Angular, Astro, Flask, Vite, Django). Ports of local services with admin or secret-bearing
 * APIs (Docker 2375, Redis 6379, Consul 8500, Kubernetes 6443, Spring actuators and Jenkins on
 * 8080, Jupyter 8888, ...) are not among them.
 */
const DEV_SERVER_PORTS = new Set(["3000", "3001", "4200", "4321", "5000", "5173", "5174", "8000"]);

/** curl and wget flags that send a body, upload a file, pick a method or read a config file. */
const CURL_SENDS = /^(-[a-zA-Z]*[dFTXK]|--(data|form|upload-file|json|request|post|config)[-\w]*(=.*)?)$/;
const WGET_SENDS = /^--(post|body|method)[-\w]*(=.*)?$/;

/** A plain GET of a local development server typed in a shell (`curl -s localhost:3000/health`). */
function devServerRead(s: Subject, u: UrlRef): boolean {
  if (toolUrl(u) || internalKind(u.host) !== "loopback" || !DEV_SERVER_PORTS.has(u.port)) return false;
  const fetchers = s.commands.filter((c) => c.args.some((a) => a.includes(u.raw)));
  return (
    fetchers.length > 0 &&
    fetchers.every(
      (c) =>
        c.wrappers.length === 0 &&
        ((c.name === "curl" && !c.args.some((a) => CURL_SENDS.test(a))) ||
          (c.name === "wget" && !c.args.some((a) => WGET_SENDS.test(a)))),
    )
  );
}

export const ssrf: Detector[] = [
  {
    id: "ssrf.metadata",
    category: "ssrf",
    severity: "block",
    description: "Cloud metadata endpoints (169.254.169.254, metadata.google.internal, ...)",
    when: { urls: true },
    detect(s) {
      const u = s.urls.find(
        (u) =>
          METADATA_HOSTS.test(u.host) ||
          (u.active && METADATA_PATHS.test(u.query) && internalKind(u.host) !== undefined),
      );
      return u !== undefined ? { reason: `cloud metadata endpoint ${u.host}${u.query}` } : undefined;
    },
  },
  {
    id: "ssrf.internal",
    category: "ssrf",
    severity: "block",
    description: "Loopback, private and link-local targets: block for tool URLs, escalate for shell commands",
    when: { urls: true },
    detect(s) {
      const u = s.urls.find((u) => u.active && internalKind(u.host) !== undefined && !devServerRead(s, u));
      if (u === undefined) return undefined;
      const kind = internalKind(u.host) ?? "";
      // a local endpoint the user named, typed in a shell (`curl localhost:8080/health`)
      if (!toolUrl(u) && kind === "loopback" && userNamed(s, `${u.host}${u.port ? `:${u.port}` : ""}`))
        return undefined;
      return {
        reason: `${kind} address ${u.host}${u.port ? `:${u.port}` : ""}`,
        severity: toolUrl(u) ? "block" : "escalate",
      };
    },
  },
  {
    id: "ssrf.scheme",
    category: "ssrf",
    severity: "block",
    description: "Non-HTTP URL schemes a fetcher should never follow (file, gopher, dict, ldap, ...)",
    when: { urls: true },
    detect(s) {
      const u = s.urls.find(
        (u) =>
          u.active &&
          /^(file|gopher|dict|ldap|ldaps|jar|netdoc|php|expect|phar|tftp|sftp|smb|jdbc|zip|data)$/.test(u.scheme),
      );
      return u !== undefined ? { reason: `${u.scheme}: URL ${u.raw.slice(0, 80)}` } : undefined;
    },
  },
  {
    id: "ssrf.obfuscated-host",
    category: "ssrf",
    severity: "block",
    description: "Hosts written as decimal/hex/octal IPs, with userinfo tricks, or DNS-rebinding names",
    when: { urls: true },
    detect(s) {
      for (const u of s.urls) {
        if (!u.active) continue;
        const why = obfuscatedHost(u);
        if (why !== undefined) return { reason: why };
        if (REBINDING.test(u.host)) return { reason: `DNS-rebinding service ${u.host}` };
      }
      return undefined;
    },
  },
];
