import { lookup as dnsLookup } from "node:dns/promises";
import { chmod, rm } from "node:fs/promises";
import { createServer, request } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { connect } from "node:net";
import type { Socket } from "node:net";
import { SandboxError } from "../errors.js";
import { canonicalAddress, deniedAddress } from "./addresses.js";
import type { CanonicalAddress } from "./addresses.js";
import { hostHeader, parseAuthority, parseForwardUrl } from "./target.js";
import type { Target } from "./target.js";

/** One connection the proxy decided on; the Engine records these in its audit trail. */
export interface EgressEvent {
  time: string;
  method: string;
  host: string;
  port: number;
  allowed: boolean;
  /** The address dialed (allowed) or the reason for refusing. */
  address?: string;
  reason?: string;
}

export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

export interface EgressProxyOptions {
  /** Unix socket to listen on (created 0600; bound into the sandbox). */
  socketPath: string;
  /** Host filter; `null` allows every host (network: any). Private addresses are refused either way. */
  allowHost: ((host: string, port: number) => boolean) | null;
  /** Addresses exempt from the private-address refusal (e.g. an internal package mirror). */
  allowAddresses?: readonly string[];
  onConnection?: (event: EgressEvent) => void;
  /** DNS resolution (default: the system resolver, all addresses). */
  resolve?: Resolver;
  connectTimeoutMs?: number;
  /** Concurrent tunnels and requests at most (default 128). */
  maxConnections?: number;
}

const defaultResolve: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

/**
 * An HTTP proxy on a unix socket: CONNECT tunnels (HTTPS and anything else over TCP) and
 * plain-HTTP forward requests. A host must pass the filter before its name is even resolved
 * (no DNS for names outside the allowlist); after resolution, only public addresses are dialed,
 * and the address checked is the address dialed. Targets and resolved addresses are parsed to
 * bytes and put in one canonical form before any check, so no spelling of an address slips by.
 */
export class EgressProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly exempt: ReadonlySet<string>;
  private active = 0;

  private constructor(private readonly options: EgressProxyOptions) {
    this.exempt = new Set(
      (options.allowAddresses ?? []).map((a) => {
        const canonical = canonicalAddress(a);
        if (!canonical)
          throw new SandboxError(
            "invalid_spec",
            `egress proxy: allowAddresses entry ${JSON.stringify(a)} is not an IP address`,
          );
        return canonical.address;
      }),
    );
    this.server = createServer((req, res) => void this.forward(req, res));
    this.server.on(
      "connect",
      (req: IncomingMessage, socket: Socket, head: Buffer) => void this.tunnel(req, socket, head),
    );
    this.server.on("connection", (socket: Socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
  }

  static async listen(options: EgressProxyOptions): Promise<EgressProxy> {
    const proxy = new EgressProxy(options);
    await rm(options.socketPath, { force: true });
    await new Promise<void>((resolve, reject) => {
      proxy.server.once("error", (err) =>
        reject(
          new SandboxError("proxy", `egress proxy could not listen on ${options.socketPath}: ${err.message}`, {
            cause: err,
          }),
        ),
      );
      proxy.server.listen(options.socketPath, resolve);
    });
    await chmod(options.socketPath, 0o600);
    return proxy;
  }

  get socketPath(): string {
    return this.options.socketPath;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await rm(this.options.socketPath, { force: true });
  }

  /** Decides on `target`: the address to dial, or the reason for refusing. */
  private async decide(method: string, target: Target): Promise<CanonicalAddress | { reason: string }> {
    const { allowHost } = this.options;
    const result = await this.check(target, allowHost);
    this.options.onConnection?.({
      time: new Date().toISOString(),
      method,
      host: target.host,
      port: target.port,
      allowed: "address" in result,
      ...("address" in result ? { address: result.address } : { reason: result.reason }),
    });
    return result;
  }

  private async check(
    target: Target,
    allowHost: EgressProxyOptions["allowHost"],
  ): Promise<CanonicalAddress | { reason: string }> {
    if (this.active >= (this.options.maxConnections ?? 128))
      return { reason: "too many open connections through the sandbox proxy" };
    if (allowHost && !allowHost(target.host, target.port)) {
      return {
        reason: `${target.host}:${target.port} is not in this capability's network allowlist (add it to the config's network hosts)`,
      };
    }
    let addresses: string[];
    if (target.ip) addresses = [target.ip.address];
    else {
      try {
        addresses = (await (this.options.resolve ?? defaultResolve)(target.host)).map((a) => a.address);
      } catch (err) {
        return { reason: `could not resolve ${target.host}: ${(err as NodeJS.ErrnoException).code ?? String(err)}` };
      }
    }
    const refused: string[] = [];
    for (const address of addresses) {
      const canonical = canonicalAddress(address);
      if (!canonical) {
        refused.push(`${address} is not an IP address`);
        continue;
      }
      const why = this.exempt.has(canonical.address) ? undefined : deniedAddress(canonical.address);
      if (why === undefined) return canonical;
      refused.push(`${canonical.address} is ${why}`);
    }
    return { reason: `refused ${target.host}: ${refused.join("; ") || "no address"}` };
  }

  private async tunnel(req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    client.on("error", () => undefined);
    const parsed = parseAuthority(req.url ?? "");
    if ("error" in parsed) return refuse(client, 400, parsed.error);
    const { target } = parsed;
    const decision = await this.decide("CONNECT", target);
    if ("reason" in decision) return refuse(client, 403, decision.reason);
    this.active++;
    const upstream = connect({
      host: decision.address,
      family: decision.family,
      port: target.port,
      timeout: this.options.connectTimeoutMs ?? 10_000,
    });
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      this.active--;
      upstream.destroy();
      client.destroy();
    };
    // The timeout covers connecting only (it is cleared once connected).
    upstream.once("timeout", () => {
      refuse(client, 504, `connecting to ${target.host}:${target.port} timed out`);
      finish();
    });
    upstream.once("error", (err) => {
      refuse(client, 502, `could not connect to ${target.host}:${target.port}: ${err.message}`);
      finish();
    });
    upstream.once("connect", () => {
      upstream.setTimeout(0);
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once("close", finish);
    client.once("close", finish);
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parsed = parseForwardUrl(req.url ?? "");
    if ("error" in parsed) return plain(res, 400, parsed.error);
    const decision = await this.decide(req.method ?? "GET", parsed.target);
    if ("reason" in decision) return plain(res, 403, decision.reason);
    this.active++;
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    delete headers["proxy-connection"];
    // The client's Host would let it reach any site behind an allowed shared front (a CDN); the
    // upstream gets the host that was checked.
    headers.host = hostHeader(parsed.target);
    const upstream = request({
      host: decision.address,
      family: decision.family,
      port: parsed.target.port,
      method: req.method,
      path: parsed.path,
      headers,
      setHost: false,
      timeout: this.options.connectTimeoutMs ?? 10_000,
    });
    let done = false;
    const finish = (): void => {
      if (!done) {
        done = true;
        this.active--;
      }
    };
    upstream.once("response", (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
      up.once("end", finish);
    });
    upstream.once("timeout", () => upstream.destroy(new Error("timed out")));
    upstream.once("error", (err) => {
      finish();
      if (!res.headersSent)
        plain(res, 502, `could not reach ${parsed.target.host}:${parsed.target.port}: ${err.message}`);
      else res.destroy();
    });
    res.once("close", () => {
      finish();
      upstream.destroy();
    });
    req.pipe(upstream);
  }
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  403: "Forbidden",
  502: "Bad Gateway",
  504: "Gateway Timeout",
};

function refuse(client: Socket, status: number, reason: string): void {
  if (client.destroyed) return;
  const text = `${reason}\n`;
  // The reason also goes in the status line: HTTP clients report a failed CONNECT by that line
  // alone (the body of a refused tunnel is dropped).
  const phrase = `${STATUS_TEXT[status] ?? "Error"} (${reason.replace(/[^\x20-\x7e]+/g, " ").slice(0, 300)})`;
  client.end(
    `HTTP/1.1 ${status} ${phrase}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\nX-Palisade-Sandbox: refused\r\n\r\n${text}`,
  );
}

function plain(res: ServerResponse, status: number, reason: string): void {
  res.writeHead(status, { "content-type": "text/plain", "x-palisade-sandbox": "refused", connection: "close" });
  res.end(`${reason}\n`);
}
