// The Agent's only way to the model: the Engine's model gateway, an HTTP server on a unix socket.
// The openai SDK gets a `fetch` that sends every request over that socket (undici's Agent with
// `connect.socketPath`), whatever host the URL names; the Agent holds no key and has no network.
import type { Agent as UndiciAgent, fetch as undiciFetch } from "undici";

/** The base URL the SDK is given; the host is never resolved, the socket is the destination. */
export const GATEWAY_BASE_URL = "http://palisade-gateway/v1";

/** Where a model call goes: the Engine's gateway (the process entry) or an endpoint directly (in-process tests). */
export type ModelEndpoint = { gateway: string; credential: string } | { baseURL: string; apiKey: string };

export interface SdkTransport {
  baseURL: string | undefined;
  apiKey: string;
  fetch: typeof fetch | undefined;
}

/** The openai SDK settings for `endpoint`: for the gateway, undici over its socket with the spawn credential. */
export async function sdkTransport(endpoint: ModelEndpoint): Promise<SdkTransport> {
  if (!("gateway" in endpoint)) return { baseURL: endpoint.baseURL || undefined, apiKey: endpoint.apiKey || "unused", fetch: undefined };
  const undici = (await import("undici")) as { Agent: typeof UndiciAgent; fetch: typeof undiciFetch };
  const dispatcher = new undici.Agent({ connect: { socketPath: endpoint.gateway }, keepAliveTimeout: 30_000 });
  const viaSocket = (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
    // undici's Response and the global one differ in type only under some `lib` settings (DOM).
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    undici.fetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher }) as unknown as Promise<Response>;
  return { baseURL: GATEWAY_BASE_URL, apiKey: endpoint.credential, fetch: viaSocket };
}
