import { createServer } from "node:http";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChatRequest, ErrorStyle, ScriptRule, ScriptedReply, ServerRefusals } from "./script.js";
import { messageText, ruleMatches } from "./script.js";
import {
  completionObject,
  errorBody,
  estimateTokens,
  resolveToolCalls,
  streamChunks,
  styledErrorBody,
  usageFor,
} from "./wire.js";

export interface ScriptedServerOptions {
  /** Default 0 (a free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Replies used in order, one per chat request, before any rule is consulted. */
  turns?: ScriptedReply[];
  /** Consulted in order when no turn is queued; the first match answers. */
  rules?: ScriptRule[];
  /** Answer when no turn is queued and no rule matches (default: a 400 naming the request). */
  fallback?: ScriptedReply | ((request: ChatRequest) => ScriptedReply);
  /** Ids listed by GET /v1/models (default ["scripted-model"]). */
  models?: string[];
  /** Defaults for replies that do not set their own. */
  latencyMs?: number;
  tokenDelayMs?: number;
  /** Requests this server refuses (changeable later through `refusals`). */
  refusals?: ServerRefusals;
}

export interface RecordedRequest {
  /** Position among all requests this server received, from 0. */
  index: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body of a chat request; undefined for other requests. */
  body: ChatRequest | undefined;
  receivedAt: number;
  /** True when the client went away before the response was complete. */
  aborted: boolean;
  /** The reply the script chose (undefined for non-chat requests). */
  reply: ScriptedReply | undefined;
}

export interface ScriptedServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `http://127.0.0.1:<port>/v1`, for `new OpenAI({ baseURL })` and OPENAI_BASE_URL. */
  readonly baseURL: string;
  readonly port: number;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Bodies of the chat completion requests, in order. */
  chatRequests(): ChatRequest[];
  enqueue(...replies: ScriptedReply[]): void;
  addRule(rule: ScriptRule): void;
  /** Turns queued and not yet used. */
  readonly pendingTurns: number;
  /** Drops the queued turns (a test that failed halfway leaves its own behind); returns how many. */
  clearTurns(): number;
  /** Requests the server refuses from now on, for the given model name (undefined: every model). */
  refuse(refusals: ServerRefusals, model?: string): void;
  close(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendError(
  res: ServerResponse,
  status: number,
  style: ErrorStyle,
  message: string,
  headers: Record<string, string> = {},
  code?: string,
): void {
  const text = styledErrorBody(style, status, message, code) ?? "";
  const type = style === "text" ? "text/plain" : "application/json";
  res.writeHead(status, {
    ...(text ? { "content-type": type } : {}),
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** The refusal a request meets, if any: [status, message, code]. */
function refusalOf(r: ServerRefusals, request: ChatRequest): [number, string, string] | undefined {
  if (r.streamOptions && request.stream_options !== undefined) {
    return [
      400,
      "Invalid request: property 'stream_options' is unsupported (extra_forbidden)",
      "invalid_request_error",
    ];
  }
  if (r.tools && (request.tools ?? []).length > 0)
    return [400, `registry.ollama.ai/library/${request.model}:latest does not support tools`, "invalid_request_error"];
  if (r.missingReasoning) {
    const lastUser = request.messages.map((m) => m.role).lastIndexOf("user");
    const at = request.messages.findIndex(
      (m, i) =>
        i > lastUser && m.role === "assistant" && (m.tool_calls ?? []).length > 0 && !("reasoning_content" in m),
    );
    if (at >= 0)
      return [
        400,
        `Missing \`reasoning_content\` field in the assistant message at message index ${String(at)}`,
        "invalid_request_error",
      ];
  }
  if (r.reasoningEcho && request.messages.some((m) => "reasoning_content" in m)) {
    return [
      400,
      "The reasoning_content is an intermediate result for display only; please remove the reasoning_content from your messages",
      "invalid_request_error",
    ];
  }
  if (r.contextTokens !== undefined) {
    const tokens =
      estimateTokens(JSON.stringify(request.messages)) + estimateTokens(JSON.stringify(request.tools ?? []));
    if (tokens > r.contextTokens) {
      const message =
        r.contextStyle === "llamacpp"
          ? `the request exceeds the available context size (${String(tokens)} tokens > ${String(r.contextTokens)}), try increasing it`
          : `This model's maximum context length is ${String(r.contextTokens)} tokens. However, your messages resulted in ${String(tokens)} tokens. Please reduce the length of the messages.`;
      return [r.contextStyle === "llamacpp" ? 500 : 400, message, "context_length_exceeded"];
    }
  }
  return undefined;
}

function sendJson(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * Starts a scripted OpenAI-compatible server: `POST /v1/chat/completions` (SSE streaming and
 * plain JSON) and `GET /v1/models`. Replies come from the queued turns, then the rules, then the
 * fallback; every request is recorded for assertions.
 */
export async function startScriptedServer(options: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  const turns: ScriptedReply[] = [...(options.turns ?? [])];
  const rules: { rule: ScriptRule; used: number }[] = (options.rules ?? []).map((rule) => ({ rule, used: 0 }));
  const requests: RecordedRequest[] = [];
  const models = options.models ?? ["scripted-model"];
  const refusals = new Map<string | undefined, ServerRefusals>(options.refusals ? [[undefined, options.refusals]] : []);
  let callSeq = 0;
  let completionSeq = 0;
  const nextCallId = (): string => `call_${String(++callSeq)}`;

  const choose = (request: ChatRequest, index: number): ScriptedReply => {
    const turn = turns.shift();
    if (turn) return turn;
    for (const entry of rules) {
      if (entry.rule.times !== undefined && entry.used >= entry.rule.times) continue;
      if (!ruleMatches(entry.rule.match, request)) continue;
      entry.used++;
      return typeof entry.rule.reply === "function" ? entry.rule.reply(request) : entry.rule.reply;
    }
    if (options.fallback) return typeof options.fallback === "function" ? options.fallback(request) : options.fallback;
    const last = request.messages.at(-1);
    return {
      status: 400,
      errorMessage:
        `scripted model server: no reply scripted for request #${String(index)} ` +
        `(last message ${last?.role ?? "none"}: ${JSON.stringify(messageText(last).slice(0, 80))}); ` +
        "queue a turn, add a matching rule or set a fallback",
    };
  };

  const handleChat = async (req: IncomingMessage, res: ServerResponse, record: RecordedRequest): Promise<void> => {
    let request: ChatRequest;
    try {
      request = JSON.parse(await readBody(req)) as ChatRequest;
      if (!Array.isArray(request.messages)) throw new Error("`messages` must be an array");
    } catch (err) {
      sendJson(res, 400, errorBody(400, `scripted model server: invalid request body: ${(err as Error).message}`));
      return;
    }
    record.body = request;
    const refusal = refusalOf({ ...refusals.get(undefined), ...refusals.get(request.model) }, request);
    if (refusal) {
      const style = refusals.get(request.model)?.contextStyle ?? refusals.get(undefined)?.contextStyle ?? "openai";
      sendError(
        res,
        refusal[0],
        refusal[2] === "context_length_exceeded" ? style : "openai",
        refusal[1],
        {},
        refusal[2],
      );
      return;
    }
    const reply = choose(request, record.index);
    record.reply = reply;
    const latency = reply.latencyMs ?? options.latencyMs ?? 0;
    if (latency > 0) await sleep(latency);
    if (record.aborted) return;

    if (reply.status !== undefined && reply.status >= 400) {
      const headers: Record<string, string> = {};
      if (reply.retryAfter !== undefined) {
        headers["retry-after"] = String(reply.retryAfter);
        headers["retry-after-ms"] = String(Math.round(reply.retryAfter * 1000));
      }
      const message = reply.errorMessage ?? `scripted error ${String(reply.status)}`;
      sendError(res, reply.status, reply.errorStyle ?? "openai", message, headers);
      return;
    }

    const calls = resolveToolCalls(reply.toolCalls, nextCallId);
    const usage = usageFor(request, reply, calls);
    const meta = {
      id: `chatcmpl-scripted-${String(++completionSeq)}`,
      created: Math.floor(Date.now() / 1000),
      model: request.model,
    };
    const q = reply.quirks ?? {};
    if (!request.stream || q.ignoreStream) {
      sendJson(res, 200, completionObject(meta, reply, calls, usage));
      return;
    }

    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    res.flushHeaders();
    const chunks = streamChunks(
      meta,
      reply,
      calls,
      request.stream_options?.include_usage || q.usageEveryChunk ? usage : undefined,
    );
    const delay = reply.tokenDelayMs ?? options.tokenDelayMs ?? 0;
    for (let i = 0; i < chunks.length; i++) {
      if (record.aborted) return;
      if (reply.stallAfterChunks !== undefined && i >= reply.stallAfterChunks) {
        // Silence until the client gives up: the socket stays open, nothing more is written.
        await new Promise<void>((resolve) => res.once("close", () => resolve()));
        return;
      }
      if (reply.failAfterChunks !== undefined && i >= reply.failAfterChunks) {
        if (reply.failMode === "finish_error") {
          // No error object: all the client learns is the finish reason.
          res.end(
            `data: ${JSON.stringify({ id: meta.id, object: "chat.completion.chunk", created: meta.created, model: meta.model, choices: [{ index: 0, delta: {}, finish_reason: "error" }] })}\n\n`,
          );
          return;
        }
        if (reply.failMode === "disconnect") {
          // Let what was written reach the client first, so this is a true mid-stream cut.
          await new Promise<void>((resolve) => res.write(":\n\n", () => resolve()));
          res.socket?.destroy();
        } else {
          const message = reply.errorMessage ?? "scripted mid-stream error";
          res.end(`data: ${JSON.stringify(errorBody(500, message))}\n\n`);
        }
        return;
      }
      if (i > 0 && delay > 0) await sleep(delay);
      if (record.aborted) return;
      if (q.comments) res.write(": OPENROUTER PROCESSING\n\n");
      res.write(`data: ${JSON.stringify(chunks[i])}\n\n`);
    }
    res.end(q.noDone ? undefined : "data: [DONE]\n\n");
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const record: RecordedRequest = {
      index: requests.length,
      method: req.method ?? "GET",
      path,
      headers: req.headers,
      body: undefined,
      receivedAt: Date.now(),
      aborted: false,
      reply: undefined,
    };
    requests.push(record);
    res.on("close", () => {
      if (!res.writableFinished) record.aborted = true;
    });
    const route = path.replace(/^\/v1(?=\/)/, "");
    if (req.method === "POST" && route === "/chat/completions") {
      handleChat(req, res, record).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, errorBody(500, `scripted model server failed: ${String(err)}`));
        else res.destroy();
      });
    } else if (req.method === "GET" && route === "/models") {
      sendJson(res, 200, {
        object: "list",
        data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "palisade-testing" })),
      });
    } else {
      sendJson(res, 404, errorBody(404, `scripted model server: no route ${String(req.method)} ${path}`));
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  const url = `http://${host}:${String(port)}`;

  return {
    url,
    baseURL: `${url}/v1`,
    port,
    requests,
    chatRequests: () => requests.flatMap((r) => (r.body ? [r.body] : [])),
    enqueue: (...replies) => void turns.push(...replies),
    addRule: (rule) => void rules.push({ rule, used: 0 }),
    clearTurns: () => turns.splice(0).length,
    refuse: (r, model) => void refusals.set(model, { ...refusals.get(model), ...r }),
    get pendingTurns() {
      return turns.length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
