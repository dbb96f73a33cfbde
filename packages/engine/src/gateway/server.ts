// The model gateway: an HTTP server on a unix socket in the Engine's private runtime directory.
// The Agent and sub-agents, which hold no API key and have no network, send their OpenAI
// requests here; the gateway checks the caller's per-spawn credential before reading anything
// else, allows only Chat Completions, only the body keys and headers the Agent needs
// (allowlist.ts) and only the models the Engine permits, bounds what it reads (admission.ts),
// adds the key, forwards to the configured endpoint and streams the answer back as it arrives,
// counting the tokens of each session on the way.
import { chmod, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { request } from "undici";
import type { Dispatcher } from "undici";
import { ConnectionGate, HeldBytes, closeAfterAnswer, readBody } from "./admission.js";
import { GatewayRefusal, checkChatBody, forwardedHeaders } from "./allowlist.js";
import { BodyPrefixes } from "./prefixes.js";
import { ExchangeRecorder } from "./recorder.js";
import type { ExchangeReplay } from "./recorder.js";
import { MAX_ERROR_BODY, endpointSecrets, redact } from "./redact.js";
import { upstreamDispatcher, upstreamUrl } from "./upstream.js";
import { publicUrl } from "../agent/model-label.js";
import { UsageScanner } from "./usage.js";
import type { TokenCount } from "./usage.js";

/** Who is calling, as established by its credential. */
export type GatewayPrincipal = { kind: "agent" } | { kind: "subagent"; name: string; sessionId: string };

export interface GatewayModel {
  baseUrl?: string;
  apiKey?: string;
  name: string;
  /** Extra headers on every upstream request (config `model.headers`). */
  headers?: Record<string, string>;
  /** Body keys the user configured (`model.extra_body`): forwarded with exactly these values. */
  extraBody?: Readonly<Record<string, unknown>>;
  /** Tokens the model reads (`model.context_window`); sizes the body cap. */
  contextWindow?: number;
}

export interface ModelGatewayOptions {
  /** The principal a bearer credential belongs to, or undefined (refused with 401). */
  authorize: (credential: string) => GatewayPrincipal | undefined;
  /** The configured endpoint, key and model (read per request). */
  model: () => GatewayModel;
  /** Models this caller may ask for besides the configured one (e.g. a client's choice for a running turn). */
  allowedModels?: (principal: GatewayPrincipal) => readonly string[];
  /** Proxy variables are read from here. */
  env: NodeJS.ProcessEnv;
  /** Append every exchange to this JSON-lines file. */
  record?: string;
  /** Answer from a recording instead of an upstream. */
  replay?: ExchangeReplay;
  log: (line: string) => void;
  /** Open connections at most (default 512); more are answered 503. */
  maxConnections?: number;
}

export interface SessionTokens extends TokenCount {
  calls: number;
}

/** The only route forwarded (under the `/v1` the SDK's base URL carries). */
const CHAT = "/chat/completions";
const MODELS = "/models";
/** How long the endpoint has to list its models (a chat waits on it once, at its start). */
export const MODELS_TIMEOUT_MS = 5_000;
/** A model list larger than this is cut (OpenRouter's lists some 300 models in ~400 KB). */
const MAX_MODELS_BODY = 4 * 1024 * 1024;
/** Header naming the session a call is for (the Agent's claim; sub-agents are bound to theirs). */
export const SESSION_HEADER = "x-palisade-session";
/** Response headers not passed back (hop-by-hop, or describing a body encoding we changed). */
const HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "proxy-connection",
  "upgrade",
  "te",
  "trailer",
]);

function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({
    error: { message: `palisade model gateway: ${message}`, type: "palisade_gateway", code },
  });
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/**
 * How long the response headers wait for the first body bytes to leave with them. A caller must
 * see the headers even when the body never follows (it tells a server that stalls from one that
 * does not answer, on a scale of seconds); when the body comes soon, as it usually does, headers
 * and body leave in one write and wake the caller once.
 */
const HEADERS_WAIT_MS = 20;

/**
 * Copies the upstream body to `res` as it arrives. Chunks that arrive in the same turn of the event
 * loop leave in one write, and the terminator with the last of them: one write (and one wake-up of
 * the caller) per burst instead of one per SSE event and one for the end. The headers leave with
 * the first of these writes, or alone after HEADERS_WAIT_MS.
 * (Corking `res` would not do: a corked chunked response writes each buffered piece separately.)
 */
function relay(
  body: Readable,
  res: ServerResponse,
  onChunk: (chunk: Buffer) => void,
  signal: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let pending: Buffer[] = [];
    let flushing: NodeJS.Immediate | undefined;
    const take = (): Buffer | undefined => {
      const out = pending.length === 1 ? pending[0] : pending.length > 1 ? Buffer.concat(pending) : undefined;
      pending = [];
      return out;
    };
    // (res.headersSent is true from writeHead on, before anything is written.)
    const headersAlone = setTimeout(() => {
      if (!res.writableEnded) res.flushHeaders();
    }, HEADERS_WAIT_MS);
    const flush = (): void => {
      flushing = undefined;
      const data = take();
      if (!data) return;
      clearTimeout(headersAlone);
      if (!res.write(data)) {
        body.pause();
        res.once("drain", onDrain);
      }
    };
    const onAbort = (): void => done(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    const done = (err?: Error): void => {
      if (flushing) clearImmediate(flushing);
      clearTimeout(headersAlone);
      body.off("data", onData);
      body.off("end", onEnd);
      body.off("error", done);
      res.off("drain", onDrain);
      signal.removeEventListener("abort", onAbort);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = (): void => {
      body.resume();
    };
    const onData = (chunk: Buffer): void => {
      onChunk(chunk);
      pending.push(chunk);
      flushing ??= setImmediate(flush);
    };
    const onEnd = (): void => {
      const data = take();
      if (data) res.end(data);
      else res.end();
      done();
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    body.on("data", onData);
    body.once("end", onEnd);
    body.once("error", done);
  });
}

/** Up to `max` bytes of `body` as text; the rest is read and dropped. */
async function readCapped(body: Readable, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size < max) chunks.push(chunk.subarray(0, max - size));
    size += chunk.length;
  }
  return Buffer.concat(chunks).toString("utf8");
}

export class ModelGateway {
  private server: Server | undefined;
  private socketPath = "";
  private readonly dispatcher: Dispatcher;
  private readonly recorder: ExchangeRecorder | undefined;
  private readonly tokens = new Map<string, SessionTokens>();
  private readonly inflight = new Set<AbortController>();
  private readonly gate: ConnectionGate;
  private readonly held = new HeldBytes();
  /** Each conversation's last body as read: its next one is read from where they differ. */
  private readonly prefixes = new BodyPrefixes();

  constructor(private readonly options: ModelGatewayOptions) {
    this.gate = new ConnectionGate(options.maxConnections);
    this.dispatcher = upstreamDispatcher(options.env);
    this.recorder = options.record ? new ExchangeRecorder(options.record, options.log) : undefined;
  }

  /** Listens on `socketPath` (its directory should be private to the Engine). */
  async listen(socketPath: string): Promise<void> {
    await rm(socketPath, { force: true });
    // A request's head must arrive within 10 s and its body within 60 s (a unix socket on this
    // machine; the Agent sends at once): a caller that trickles holds no slot for long.
    const server = createServer(
      { keepAliveTimeout: 60_000, headersTimeout: 10_000, requestTimeout: 60_000 },
      (req, res) => void this.handle(req, res),
    );
    server.on("connection", this.gate.onConnection);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => resolve());
    });
    await chmod(socketPath, 0o600);
    this.server = server;
    this.socketPath = socketPath;
  }

  get path(): string {
    return this.socketPath;
  }

  /** Bytes of request bodies held now (read, and not yet answered). */
  get heldBytes(): number {
    return this.held.held;
  }

  /** Tokens counted per session id ("" for calls that named none) since the session was last idle. */
  usage(): ReadonlyMap<string, SessionTokens> {
    return this.tokens;
  }

  /** Drops a session's counts (the turns recorded their usage). */
  forget(sessionId: string): void {
    this.tokens.delete(sessionId);
  }

  /**
   * The model ids the endpoint lists (GET {base_url}/models, OpenAI's `{data: [{id}]}`), asked
   * with the endpoint's key and headers; what went wrong otherwise, in words (the key redacted).
   */
  async listModels(timeoutMs = MODELS_TIMEOUT_MS): Promise<{ models: string[] } | { error: string }> {
    const model = this.options.model();
    const url = upstreamUrl(model.baseUrl, MODELS);
    const where = publicUrl(model.baseUrl);
    const headers: Record<string, string> = { accept: "application/json", ...model.headers };
    if (model.apiKey) headers.authorization = `Bearer ${model.apiKey}`;
    try {
      const res = await request(url, {
        method: "GET",
        headers,
        signal: AbortSignal.timeout(timeoutMs),
        dispatcher: this.dispatcher,
      });
      const text = await readCapped(res.body, MAX_MODELS_BODY);
      if (res.statusCode >= 400)
        return {
          error: `${where} answered ${String(res.statusCode)}: ${redact(text, endpointSecrets(model)).slice(0, 300) || "no body"}`,
        };
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return { error: `${where} did not answer JSON (starts with ${JSON.stringify(text.slice(0, 60))})` };
      }
      const data = (body as { data?: unknown } | null)?.data;
      if (!Array.isArray(data)) return { error: `${where} answered without a "data" list of models, so it lists none` };
      const ids = data
        .map((m) => (typeof m === "object" && m !== null ? (m as { id?: unknown }).id : undefined))
        .filter((id): id is string => typeof id === "string" && id !== "");
      return { models: ids };
    } catch (err) {
      const e = err as Error;
      const why = e.name === "TimeoutError" ? `no answer within ${String(timeoutMs / 1000)} s` : e.message;
      return { error: `${where} could not be asked for its models: ${redact(why, endpointSecrets(model))}` };
    }
  }

  async close(): Promise<void> {
    for (const c of this.inflight) c.abort(new Error("the model gateway is closing"));
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await this.recorder?.flush();
    await this.dispatcher.close().catch(() => undefined);
    if (this.socketPath) await rm(this.socketPath, { force: true });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let release: (() => void) | undefined;
    try {
      release = this.gate.admit(req);
      res.once("close", release);
      const principal = this.authenticate(req);
      const route = (req.url ?? "/").split("?")[0]?.replace(/^\/v1(?=\/)/, "") ?? "/";
      if (req.method !== "POST" || route !== CHAT) {
        throw new GatewayRefusal(
          404,
          "not_found",
          `no route ${String(req.method)} ${req.url ?? "/"}: only POST /v1${CHAT} is forwarded`,
        );
      }
      const model = this.options.model();
      const raw = await readBody(req, model.contextWindow, this.held);
      res.once("close", () => this.held.give(raw.length));
      const session =
        principal.kind === "subagent" ? principal.sessionId : String(req.headers[SESSION_HEADER] ?? "").slice(0, 128);
      const body = this.checkedBody(principal, raw, model, `${principal.kind}:${session}`);
      await this.forward(req, res, body, session);
    } catch (err) {
      if (err instanceof GatewayRefusal) {
        // A request refused before its body was read leaves the connection unusable.
        if (err.status === 413 || err.status === 429 || err.status === 503 || release === undefined)
          closeAfterAnswer(req, res);
        sendError(res, err.status, err.code, err.message);
      } else {
        const message = err instanceof Error ? err.message : String(err);
        this.options.log(`model gateway: ${message}`);
        sendError(res, 502, "upstream_failed", message);
      }
    }
  }

  private authenticate(req: IncomingMessage): GatewayPrincipal {
    const header = req.headers.authorization ?? "";
    const credential = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
    const principal = credential ? this.options.authorize(credential) : undefined;
    if (!principal) {
      // Nothing of the request is read: an unknown caller learns nothing and costs nothing.
      req.resume();
      throw new GatewayRefusal(
        401,
        "invalid_credential",
        "missing or wrong credential: only processes the Engine started may call the model",
      );
    }
    return principal;
  }

  /** The body to forward, as sent: one JSON object of allowed keys naming a permitted model once. */
  private checkedBody(
    principal: GatewayPrincipal,
    raw: Buffer,
    endpoint: GatewayModel,
    conversation: string,
  ): { bytes: Buffer; json?: unknown } {
    const { model, prefix } = checkChatBody(raw, endpoint.extraBody, this.prefixes.take(conversation));
    if (prefix) this.prefixes.put(conversation, prefix);
    // Parsed only for a recording: held through the upstream call, a long history would
    // outlive the young generation and fill the old one.
    const json: unknown = this.recorder ? JSON.parse(raw.toString("utf8")) : undefined;
    const configured = endpoint.name;
    const allowed = [configured, ...(this.options.allowedModels?.(principal) ?? [])];
    if (typeof model !== "string" || !allowed.includes(model)) {
      throw new GatewayRefusal(
        403,
        "model_not_allowed",
        `model ${JSON.stringify(model)} is not allowed; this Engine permits ${[...new Set(allowed)].map((m) => JSON.stringify(m)).join(", ")} (model.name in its config, or the model a client chose for a running turn)`,
      );
    }
    // Forwarded unchanged: some servers refuse stream_options, and the Agent knows which.
    return { bytes: raw, json };
  }

  private count(session: string, usage: TokenCount | undefined): void {
    const cur = this.tokens.get(session) ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, calls: 0 };
    cur.calls++;
    if (usage) {
      cur.inputTokens += usage.inputTokens;
      cur.outputTokens += usage.outputTokens;
      cur.cacheReadTokens += usage.cacheReadTokens;
    }
    this.tokens.set(session, cur);
  }

  private async forward(
    req: IncomingMessage,
    res: ServerResponse,
    body: { bytes: Buffer; json?: unknown },
    session: string,
  ): Promise<void> {
    const replay = this.options.replay;
    if (replay) {
      const ex = replay.take();
      if (!ex)
        throw new GatewayRefusal(
          500,
          "replay_exhausted",
          `the recording ${replay.file} has no exchange left for this request`,
        );
      const scanner = new UsageScanner(ex.contentType.includes("event-stream"));
      scanner.push(Buffer.from(ex.body));
      this.count(session, scanner.end());
      res.writeHead(ex.status, { "content-type": ex.contentType });
      res.end(ex.body);
      return;
    }

    const model = this.options.model();
    const headers = forwardedHeaders(req.headers);
    Object.assign(headers, model.headers);
    if (model.apiKey) headers.authorization = `Bearer ${model.apiKey}`;
    const controller = new AbortController();
    const onClose = (): void => {
      if (!res.writableFinished) controller.abort(new Error("the caller went away"));
    };
    res.on("close", onClose);
    this.inflight.add(controller);
    try {
      const upstream = await request(upstreamUrl(model.baseUrl, CHAT), {
        method: "POST",
        headers,
        body: body.bytes,
        signal: controller.signal,
        dispatcher: this.dispatcher,
      });
      const contentType = String(upstream.headers["content-type"] ?? "");
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(upstream.headers))
        if (value !== undefined && !HOP.has(name)) out[name] = value;
      if (upstream.statusCode >= 400) {
        const text = redact(await readCapped(upstream.body, MAX_ERROR_BODY), endpointSecrets(model));
        this.count(session, undefined);
        this.recorder?.add({ request: body.json, status: upstream.statusCode, contentType, body: text });
        res.writeHead(upstream.statusCode, out).end(text);
        return;
      }
      res.writeHead(upstream.statusCode, out);
      const scanner = new UsageScanner(contentType.includes("event-stream"));
      const recorded: Buffer[] = [];
      const recorder = this.recorder;
      await relay(
        upstream.body,
        res,
        (chunk) => {
          scanner.push(chunk);
          if (recorder) recorded.push(chunk);
        },
        controller.signal,
      );
      this.count(session, upstream.statusCode < 400 ? scanner.end() : undefined);
      this.recorder?.add({
        request: body.json,
        status: upstream.statusCode,
        contentType,
        body: Buffer.concat(recorded).toString("utf8"),
      });
    } catch (err) {
      if (controller.signal.aborted) {
        res.destroy();
        return;
      }
      const where = upstreamUrl(model.baseUrl, CHAT).origin;
      throw new Error(
        `cannot reach the model at ${where}: ${(err as Error).message}${err instanceof Error && err.cause instanceof Error ? ` (${err.cause.message})` : ""}`,
        { cause: err },
      );
    } finally {
      res.off("close", onClose);
      this.inflight.delete(controller);
    }
  }
}
