// The Agent's only way to the model: the Engine's model gateway, an HTTP server on a unix socket.
// The openai SDK gets a `fetch` that sends every request over that socket (an undici Agent with
// `connect.socketPath`), whatever host the URL names; the Agent holds no key and has no network.
import { Readable } from "node:stream";
import type {
  Agent as UndiciAgent,
  Dispatcher,
  fetch as undiciFetch,
  interceptors as undiciInterceptors,
} from "undici";

/** The base URL the SDK is given; the host is never resolved, the socket is the destination. */
export const GATEWAY_BASE_URL = "http://palisade-gateway/v1";

/**
 * Connections to the gateway at most, per process: more model calls at once wait for one to end.
 * The gateway refuses connections past its own cap (DEFAULT_MAX_CONNECTIONS in the Engine, twice
 * this, so sub-agents fit beside the Agent); an unbounded pool would turn a busy Agent's calls
 * into 503s. 256 calls in flight keep a 50 ms model busy for 300 sessions.
 */
export const GATEWAY_CONNECTIONS = 256;

/** Where a model call goes: the Engine's gateway (the process entry) or an endpoint directly (in-process tests). */
export type ModelEndpoint = { gateway: string; credential: string } | { baseURL: string; apiKey: string };

export interface SdkTransport {
  baseURL: string | undefined;
  apiKey: string;
  fetch: typeof fetch | undefined;
}

type Undici = { Agent: typeof UndiciAgent; fetch: typeof undiciFetch; interceptors: typeof undiciInterceptors };

function requestHeaders(headers: RequestInit["headers"]): string[] {
  const flat: string[] = [];
  if (!headers) return flat;
  if (headers instanceof Headers) {
    headers.forEach((value, name) => flat.push(name, value));
    return flat;
  }
  for (const [name, value] of Array.isArray(headers) ? headers : Object.entries(headers)) {
    for (const v of [value].flat()) flat.push(name, v);
  }
  return flat;
}

function responseHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.append(name, value);
  }
  return headers;
}

/**
 * fetch over undici's `request` for what the SDK sends the gateway (a string or byte body, or none): the
 * same HTTP exchange as undici's fetch without its per-request web machinery (Request, fetch
 * controller, a body stream for the request); the response body is decompressed as fetch would
 * (undici's decompress interceptor). Anything else goes through undici's fetch.
 */
function gatewayFetch(undici: Undici, dispatcher: Dispatcher): typeof fetch {
  const viaFetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
    // undici's Response and the global one differ in type only under some `lib` settings (DOM).
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    undici.fetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      dispatcher,
    }) as unknown as Promise<Response>;
  const decoding = dispatcher.compose(undici.interceptors.decompress());
  return async (input, init) => {
    const body = init?.body;
    if (input instanceof Request || (body != null && typeof body !== "string" && !(body instanceof Uint8Array)))
      return viaFetch(input, init);
    const url = new URL(input);
    const method = (init?.method ?? "GET").toUpperCase();
    const res = await decoding.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method,
      headers: requestHeaders(init?.headers),
      body: body ?? null,
      signal: init?.signal ?? undefined,
    });
    const empty = method === "HEAD" || res.statusCode === 204 || res.statusCode === 205 || res.statusCode === 304;
    if (empty) res.body.resume();
    return new Response(empty ? null : (Readable.toWeb(res.body) as ReadableStream<Uint8Array>), {
      status: res.statusCode,
      statusText: res.statusText ?? "",
      headers: responseHeaders(res.headers),
    });
  };
}

/** The openai SDK settings for `endpoint`: for the gateway, undici over its socket with the spawn credential. */
export async function sdkTransport(endpoint: ModelEndpoint): Promise<SdkTransport> {
  if (!("gateway" in endpoint))
    return { baseURL: endpoint.baseURL || undefined, apiKey: endpoint.apiKey || "unused", fetch: undefined };
  const undici = (await import("undici")) as Undici;
  const dispatcher = new undici.Agent({
    connect: { socketPath: endpoint.gateway },
    connections: GATEWAY_CONNECTIONS,
    keepAliveTimeout: 30_000,
  });
  return { baseURL: GATEWAY_BASE_URL, apiKey: endpoint.credential, fetch: gatewayFetch(undici, dispatcher) };
}
