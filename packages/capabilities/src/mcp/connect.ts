import { createWriteStream, mkdirSync } from "node:fs";
import type { WriteStream } from "node:fs";
import { dirname } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { isStdio } from "./config.js";
import type { McpServerConfig } from "./config.js";
import { stdioSpawn } from "./launch.js";
import { ProgressTap } from "./progress.js";
import { loadMcpSdk } from "./sdk.js";
import type { StdioContext, StdioWrapper } from "./launch.js";

export const CLIENT_INFO = { name: "palisade", version: "0.1.0" } as const;

/** What a server may ask of Palisade, and why each is refused. */
const REFUSED: Record<string, string> = {
  "sampling/createMessage": "Palisade does not let MCP servers use its model (sampling is not supported): the tool must work without it",
  "elicitation/create": "Palisade does not let MCP servers ask the user questions (elicitation is not supported): the tool must take what it needs as arguments",
  "roots/list": "Palisade does not expose roots to MCP servers: pass paths as tool arguments or in the server's command line",
};

/**
 * Every request a server sends to the client is refused with an error saying what and why.
 * Palisade declares no client capabilities, so well-behaved servers never send them.
 */
export async function refuseServerRequest(request: JSONRPCRequest): Promise<never> {
  const why = REFUSED[request.method] ?? `Palisade does not support the request ${request.method} from MCP servers`;
  const { ErrorCode, McpError } = await loadMcpSdk();
  throw new McpError(ErrorCode.MethodNotFound, why);
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
}

/** Starts (stdio) or reaches (HTTP) a server and completes `initialize`. */
export async function connect(opts: ConnectOptions): Promise<Connection & { log: WriteStream | undefined }> {
  const { Client, StdioClientTransport, StreamableHTTPClientTransport } = await loadMcpSdk();
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  client.fallbackRequestHandler = refuseServerRequest;
  await opts.setup(client);
  let transport: Transport;
  let log: WriteStream | undefined;
  let stdio: StdioClientTransport | undefined;
  let release = (): Promise<void> => Promise.resolve();
  if (isStdio(opts.config)) {
    const { close, ...spawn } = await stdioSpawn(opts.config.command, opts.values, opts.config.cwd, opts.context, opts.wrap);
    release = close ?? release;
    stdio = new StdioClientTransport({ ...spawn, stderr: "pipe" });
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
    transport = new StreamableHTTPClientTransport(new URL(opts.config.url), { requestInit: { headers: opts.values } });
  }
  try {
    await client.connect(transport, { signal: opts.signal, timeout: opts.timeoutMs });
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
