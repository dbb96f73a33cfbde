import { lookup } from "node:dns/promises";
import * as http from "node:http";
import * as https from "node:https";
import { isIP } from "node:net";
import { ToolError } from "@palisade/capability-sdk";
import { classifyAddress } from "./address.js";
import { hostAllowed, privateAllowed } from "./policy.js";
import type { NetworkPolicy } from "./policy.js";

/** Resolves a host name to its addresses; injectable so tests need no DNS. */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

export interface FetchLimits {
  /** Response bodies are cut here (default 5 MiB, the artifact limit). */
  maxResponseBytes: number;
  /** Whole request, redirects included (default 30 s). */
  timeoutMs: number;
  maxRedirects: number;
  maxRequestBytes: number;
}

export const DEFAULT_LIMITS: FetchLimits = {
  maxResponseBytes: 5 * 1024 * 1024,
  timeoutMs: 30_000,
  maxRedirects: 5,
  maxRequestBytes: 1024 * 1024,
};

export interface FetchRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface FetchResponse {
  status: number;
  statusText: string;
  /** The URL that answered, after redirects. */
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The body was longer than maxResponseBytes and was cut. */
  truncated: boolean;
  redirects: string[];
}

export interface FetchOptions {
  policy: NetworkPolicy;
  resolver: Resolver;
  limits: FetchLimits;
  signal: AbortSignal;
  /**
   * The sandbox's egress proxy (`http://127.0.0.1:PORT`): every request goes through it, names
   * are resolved by it (there is no DNS inside a sandbox), and it refuses hosts outside the
   * allowlist and private addresses after resolution. Without it, this module resolves and
   * checks addresses itself and connects directly.
   */
  proxy?: string;
}

/** Headers the caller may not set: they would contradict the checked target or the framing. */
const DROPPED_HEADERS = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "upgrade",
  "proxy-connection",
  "keep-alive",
]);
/** Headers not carried to another origin on redirect. */
const CREDENTIAL_HEADERS = new Set(["authorization", "cookie", "proxy-authorization"]);

/**
 * An HTTP(S) request that can only reach what the policy allows. For every hop (redirects
 * included) the URL's scheme and host are checked, the host is resolved once, every resolved
 * address must be public (unless allowed), and the connection goes to that checked address
 * (TLS still verifies the host name), so DNS rebinding between check and connect is impossible.
 * Through a proxy (`options.proxy`), the proxy resolves and checks the addresses the same way.
 */
export async function guardedFetch(req: FetchRequest, options: FetchOptions): Promise<FetchResponse> {
  const { limits } = options;
  const signal = AbortSignal.any([options.signal, AbortSignal.timeout(limits.timeoutMs)]);
  if (req.body !== undefined && Buffer.byteLength(req.body) > limits.maxRequestBytes) {
    throw new ToolError(`request body is larger than ${limits.maxRequestBytes} bytes`, { code: "too_large" });
  }
  let method = req.method.toUpperCase();
  let body = req.body;
  let headers = cleanHeaders(req.headers ?? {});
  let url = parseUrl(req.url);
  const redirects: string[] = [];
  for (;;) {
    const address = await checkTarget(url, options);
    let res: FetchResponse;
    try {
      res = await send(url, address, method, headers, body, limits, signal, options.proxy);
    } catch (err) {
      if (err instanceof ToolError) throw err;
      const refused = proxyRefusal(err);
      if (refused)
        throw new ToolError(`refused by the sandbox's egress proxy: ${url.host}: ${refused}`, { code: "blocked_host" });
      if (signal.aborted) {
        const why = options.signal.aborted
          ? "the call was cancelled"
          : `no complete response within ${limits.timeoutMs} ms`;
        throw new ToolError(`request to ${url.href} stopped: ${why}`, { code: "timeout" });
      }
      throw new ToolError(`request to ${url.href} failed: ${err instanceof Error ? err.message : String(err)}`, {
        code: "network_error",
      });
    }
    const location = res.headers.location;
    if (options.proxy && res.headers["x-palisade-sandbox"] === "refused") {
      throw new ToolError(`refused by the sandbox's egress proxy: ${res.body.toString("utf8").trim()}`, {
        code: "blocked_host",
      });
    }
    if (res.status < 300 || res.status >= 400 || res.status === 304 || !location) return { ...res, redirects };
    if (redirects.length >= limits.maxRedirects) {
      throw new ToolError(`too many redirects (more than ${limits.maxRedirects}) starting at ${req.url}`, {
        code: "too_many_redirects",
      });
    }
    const next = parseUrl(new URL(location, url).href);
    redirects.push(next.href);
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
      method = method === "HEAD" ? "HEAD" : "GET";
      body = undefined;
    }
    if (next.origin !== url.origin)
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !CREDENTIAL_HEADERS.has(k)));
    url = next;
  }
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolError(`invalid URL ${JSON.stringify(text)}; give an absolute http:// or https:// URL`, {
      code: "invalid_url",
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolError(
      `refused: scheme "${url.protocol.replace(/:$/, "")}" in ${JSON.stringify(text)}; only http and https are allowed`,
      { code: "blocked_scheme" },
    );
  }
  if (url.username || url.password) {
    throw new ToolError("refused: credentials in the URL; send an Authorization header instead", {
      code: "invalid_url",
    });
  }
  return url;
}

/** Checks the policy for `url` and returns the one address to connect to (the name itself through a proxy). */
async function checkTarget(url: URL, options: FetchOptions): Promise<string> {
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  if (!hostAllowed(options.policy, host, port)) {
    const why =
      options.policy.mode === "none"
        ? "network access is disabled for this capability (network.mode: none)"
        : `${host}:${port} is not in the network allowlist (${options.policy.allow.join(", ") || "empty"})`;
    throw new ToolError(`refused: ${why}`, { code: "blocked_host" });
  }
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else if (options.proxy) return host;
  else {
    try {
      addresses = (await options.resolver(host)).map((a) => a.address);
    } catch (err) {
      throw new ToolError(`cannot resolve host ${host}: ${err instanceof Error ? err.message : String(err)}`, {
        code: "dns_error",
      });
    }
    if (addresses.length === 0) throw new ToolError(`cannot resolve host ${host}: no addresses`, { code: "dns_error" });
  }
  for (const address of addresses) {
    const kind = classifyAddress(address);
    if (kind !== undefined && !privateAllowed(options.policy, address)) {
      const from = address === host ? "" : ` (resolved from ${host})`;
      throw new ToolError(
        `refused: ${address}${from} is a ${kind} address; the http capability only reaches public addresses ` +
          "unless its configuration allows it (network.allow_private)",
        { code: "blocked_address" },
      );
    }
  }
  return addresses[0] ?? host;
}

function cleanHeaders(input: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(input)) {
    const key = k.toLowerCase();
    if (!DROPPED_HEADERS.has(key)) out[key] = String(v);
  }
  return out;
}

function send(
  url: URL,
  address: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  limits: FetchLimits,
  signal: AbortSignal,
  proxy: string | undefined,
): Promise<FetchResponse> {
  const mod = url.protocol === "https:" ? https : http;
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  // Node's own proxy support: a forward request for http, a CONNECT tunnel for https.
  const agent = proxy ? proxyAgent(url.protocol, proxy) : false;
  return new Promise<FetchResponse>((resolve, reject) => {
    let request: http.ClientRequest;
    try {
      request = mod.request({
        host: proxy ? hostname : address,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method,
        headers: { "user-agent": "palisade-http/0.1", ...headers, host: url.host },
        servername: isIP(hostname) ? undefined : hostname,
        agent,
        signal,
      });
    } catch (err) {
      reject(
        new ToolError(`invalid request: ${err instanceof Error ? err.message : String(err)}`, {
          code: "invalid_request",
        }),
      );
      return;
    }
    request.on("error", reject);
    request.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const finish = (): void => {
        const headersOut: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers))
          if (v !== undefined) headersOut[k] = Array.isArray(v) ? v.join(", ") : v;
        resolve({
          status: res.statusCode ?? 0,
          statusText: res.statusMessage ?? "",
          url: url.href,
          headers: headersOut,
          body: Buffer.concat(chunks),
          truncated,
          redirects: [],
        });
      };
      res.on("data", (chunk: Buffer) => {
        if (truncated) return;
        const room = limits.maxResponseBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          size += room;
          truncated = true;
          res.destroy();
          finish();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on("end", () => {
        if (!truncated) finish();
      });
      res.on("error", (err) => {
        if (!truncated) reject(err);
      });
    });
    request.end(body);
  });
}

type ProxyAgentOptions = http.AgentOptions & { proxyEnv: Record<string, string> };

function proxyAgent(protocol: string, proxy: string): http.Agent {
  // No NO_PROXY: loopback and every other destination go through the proxy too.
  const options: ProxyAgentOptions = { proxyEnv: { HTTP_PROXY: proxy, HTTPS_PROXY: proxy }, keepAlive: false };
  return protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
}

/** The proxy's reason when it refused a CONNECT tunnel (Node reports its status line). */
function proxyRefusal(err: unknown): string | undefined {
  if (!(err instanceof Error) || (err as NodeJS.ErrnoException).code !== "ERR_PROXY_TUNNEL") return undefined;
  const status = /HTTP\/1\.[01] (\d{3}) (.*)$/.exec(err.message);
  return status?.[1] === "403" ? status[2] : undefined;
}
