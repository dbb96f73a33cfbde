// A `fetch` for the openai SDK over node:http(s) with keep-alive agents. Node's built-in fetch
// (undici) costs several ms of CPU per streamed model call in its web-spec machinery; this one
// does only what the SDK needs: string/bytes bodies, a streamed response body, abort by signal,
// gzip/deflate/br bodies. Anything else (redirects, stream or form bodies) goes to global fetch.
import * as http from "node:http";
import * as https from "node:https";
import type { IncomingMessage } from "node:http";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Readable } from "node:stream";

const NULL_BODY = new Set([204, 205, 304]);
const REDIRECT = new Set([301, 302, 303, 307, 308]);

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException("This operation was aborted", "AbortError");
}

function headerPairs(h: RequestInit["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (h instanceof Headers || Array.isArray(h)) {
    for (const [k, v] of h as Iterable<[string, string]>) out[k] = v;
    return out;
  }
  for (const [k, v] of Object.entries(h as Record<string, string | undefined>)) if (v !== undefined) out[k] = v;
  return out;
}

function decoded(res: IncomingMessage): Readable {
  switch ((res.headers["content-encoding"] ?? "").toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return res.pipe(createGunzip());
    case "deflate":
      return res.pipe(createInflate());
    case "br":
      return res.pipe(createBrotliDecompress());
    default:
      return res;
  }
}

/** The response body as a web stream, with backpressure; cancelling it destroys the socket's response. */
function bodyStream(res: IncomingMessage, signal: AbortSignal | null | undefined): ReadableStream<Uint8Array> {
  const src = decoded(res);
  let onAbort: (() => void) | undefined;
  const cleanup = (): void => {
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      src.on("data", (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) src.pause();
      });
      src.once("end", () => {
        cleanup();
        controller.close();
      });
      src.once("error", (err) => {
        cleanup();
        controller.error(err);
      });
      if (signal) {
        onAbort = () => {
          const reason = abortReason(signal);
          controller.error(reason);
          res.destroy();
          if (src !== res) src.destroy();
        };
        signal.addEventListener("abort", onAbort, { once: true });
      }
    },
    pull() {
      if (src.isPaused()) src.resume();
    },
    cancel() {
      cleanup();
      res.destroy();
      if (src !== res) src.destroy();
    },
  }, { highWaterMark: 16 });
}

/** A fetch over keep-alive node:http(s) agents, for `new OpenAI({ fetch })`. */
export function createHttpFetch(): typeof fetch {
  const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };
  const fallback = globalThis.fetch;
  return (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const body = init?.body;
    if (input instanceof Request || (body != null && typeof body !== "string" && !(body instanceof Uint8Array))) return fallback(input, init);
    const url = typeof input === "string" ? new URL(input) : input;
    if (url.protocol !== "http:" && url.protocol !== "https:") return fallback(input, init);
    const signal = init?.signal;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const method = (init?.method ?? "GET").toUpperCase();
    const headers = headerPairs(init?.headers);
    if (body != null && !Object.keys(headers).some((k) => k.toLowerCase() === "content-length")) {
      headers["content-length"] = String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength);
    }
    return new Promise<Response>((resolve, reject) => {
      const lib = url.protocol === "https:" ? https : http;
      const req = lib.request(url, { method, headers, agent: agents[url.protocol as "http:" | "https:"] });
      const onAbort = (): void => {
        const reason = abortReason(signal!);
        req.destroy();
        reject(reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      req.once("error", (err: Error) => {
        signal?.removeEventListener("abort", onAbort);
        reject(new TypeError("fetch failed", { cause: err }));
      });
      req.once("response", (res: IncomingMessage) => {
        signal?.removeEventListener("abort", onAbort);
        const status = res.statusCode ?? 0;
        if (REDIRECT.has(status) && res.headers.location) {
          res.resume();
          resolve(fallback(input, init));
          return;
        }
        const h = new Headers();
        const raw = res.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2) h.append(raw[i] ?? "", raw[i + 1] ?? "");
        if (NULL_BODY.has(status) || method === "HEAD") {
          res.resume();
          resolve(new Response(null, { status, statusText: res.statusMessage ?? "", headers: h }));
          return;
        }
        resolve(new Response(bodyStream(res, signal), { status, statusText: res.statusMessage ?? "", headers: h }));
      });
      req.end(body ?? undefined);
    });
  };
}
