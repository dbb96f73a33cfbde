import { createWriteStream, mkdirSync } from "node:fs";
import type { WriteStream } from "node:fs";
import { dirname } from "node:path";
import type { Client, JSONRPCRequest, OAuthClientProvider, Transport } from "@modelcontextprotocol/client";
import type { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { isStdio } from "./config.js";
import type { McpServerConfig } from "./config.js";
import { stdioSpawn } from "./launch.js";
import { ProgressTap } from "./progress.js";
import { loadMcpSdk } from "./sdk.js";
import type { StdioContext, StdioWrapper } from "./launch.js";

const METHOD_NOT_FOUND = -32601;

export const CLIENT_INFO = { name: "palisade", version: "0.1.0" } as const;

/** What a server may ask of Palisade, and why each is refused. */
const REFUSED: Record<string, string> = {
  "sampling/createMessage":
    "Palisade does not let MCP servers use its model (sampling is not supported): the tool must work without it",
  "roots/list":
    "Palisade does not expose roots to MCP servers: pass paths as tool arguments or in the server's command line",
};

/**
 * Every request a server sends to the client but elicitation is refused with an error saying
 * what and why. Palisade declares no other client capability, so well-behaved servers never send them.
 */
export async function refuseServerRequest(request: JSONRPCRequest): Promise<never> {
  const why = REFUSED[request.method] ?? `Palisade does not support the request ${request.method} from MCP servers`;
  const { ProtocolError } = await loadMcpSdk();
  throw new ProtocolError(METHOD_NOT_FOUND, why);
}

export interface Connection {
  client: Client;
  transport: Transport;
  progress: ProgressTap;
  /** The stdio server's pid; undefined for HTTP. */
  pid: number | undefined;
  /** Releases what the wrapper set up (e.g. the sandbox); after the client is closed. */
  release: () => Promise<void>;
}

export interface ConnectOptions {
  config: McpServerConfig;
  /** The stdio env or HTTP headers with secrets already expanded. */
  values: Record<string, string>;
  wrap?: StdioWrapper;
  context: StdioContext;
  /** stdio stderr is appended here, redacted. */
  logFile: string;
  redact: (text: string) => string;
  /** Each redacted stderr chunk, as it comes. */
  onStderr?: (text: string) => void;
  timeoutMs: number;
  signal: AbortSignal;
  /** Set before connecting, so no early notification is lost. */
  setup: (client: Client) => void | Promise<void>;
  /** The era found at an earlier connect of the same server: skips the probe. */
  era?: McpEra;
  /** OAuth for an HTTP server (tokens from Palisade's credential store). */
  authProvider?: OAuthClientProvider;
}

/** Which protocol a server speaks: `modern` is 2026-07-28 (stateless), `legacy` 2025-11-25 and older. */
export type McpEra = "modern" | "legacy";

/**
 * Starts (stdio) or reaches (HTTP) a server and settles the protocol: `server/discover` first
 * (2026-07-28), `initialize` when the server does not know it (2025-11-25 and older).
 */
export async function connect(opts: ConnectOptions): Promise<Connection & { log: WriteStream | undefined }> {
  const { Client, StdioClientTransport, StreamableHTTPClientTransport } = await loadMcpSdk();
  // Elicitation in form mode only: a URL would send the user to a page the server chose.
  const client = new Client(CLIENT_INFO, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: "auto" },
  });
  client.fallbackRequestHandler = refuseServerRequest;
  await opts.setup(client);
  let transport: Transport;
  let log: WriteStream | undefined;
  let stdio: StdioClientTransport | undefined;
  let release = (): Promise<void> => Promise.resolve();
  if (isStdio(opts.config)) {
    const { close, ...spawn } = await stdioSpawn(
      opts.config.command,
      opts.values,
      opts.config.cwd,
      opts.context,
      opts.wrap,
    );
    release = close ?? release;
    // A subclass, so the SDK probes the era on this process's own pipes instead of spawning
    // a second, short-lived copy of the server (which would double every start).
    class InPlaceProbe extends StdioClientTransport {}
    stdio = new InPlaceProbe({ ...spawn, stderr: "pipe" });
    mkdirSync(dirname(opts.logFile), { recursive: true });
    const stream = createWriteStream(opts.logFile, { flags: "a", mode: 0o600 });
    log = stream;
    stream.write(`[palisade] ${new Date().toISOString()} starting ${JSON.stringify(opts.config.command)}\n`);
    stdio.stderr?.on("data", (buf: Buffer) => {
      const text = opts.redact(buf.toString("utf8"));
      stream.write(text);
      opts.onStderr?.(text);
    });
    transport = stdio;
  } else {
    transport = new StreamableHTTPClientTransport(new URL(opts.config.url), {
      requestInit: { headers: opts.values },
      ...(opts.authProvider ? { authProvider: opts.authProvider } : {}),
    });
  }
  try {
    await client.connect(transport, {
      signal: opts.signal,
      timeout: opts.timeoutMs,
      ...(opts.era === "legacy" ? { prior: { kind: "legacy" as const } } : {}),
    });
  } catch (err) {
    await client.close().catch(() => undefined);
    await release().catch(() => undefined);
    log?.end();
    throw err;
  }
  const progress = new ProgressTap();
  progress.attach(transport);
  return { client, transport, progress, pid: stdio?.pid ?? undefined, log, release };
}
