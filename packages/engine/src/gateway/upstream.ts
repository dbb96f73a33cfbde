// The gateway's way to the model endpoint: undici with the proxy settings of the Engine's
// environment (HTTP_PROXY, HTTPS_PROXY, NO_PROXY; lower case wins, as curl does) and TLS
// certificates verified (undici's default, never turned off here).
import { Agent, EnvHttpProxyAgent } from "undici";
import type { Dispatcher } from "undici";

export const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** The proxy settings named by `env` (and only `env`: the Engine may run with a scrubbed one). */
export function proxySettings(env: NodeJS.ProcessEnv): { httpProxy: string; httpsProxy: string; noProxy: string } {
  return {
    httpProxy: env.http_proxy ?? env.HTTP_PROXY ?? "",
    httpsProxy: env.https_proxy ?? env.HTTPS_PROXY ?? "",
    noProxy: env.no_proxy ?? env.NO_PROXY ?? "",
  };
}

/** A keep-alive dispatcher for upstream calls; through a proxy when the environment names one. */
export function upstreamDispatcher(env: NodeJS.ProcessEnv): Dispatcher {
  const proxy = proxySettings(env);
  // Streams may pause between tokens; the Agent's own request timeout (300 s) bounds a call.
  const timeouts = { headersTimeout: 300_000, bodyTimeout: 300_000 };
  if (!proxy.httpProxy && !proxy.httpsProxy) return new Agent(timeouts);
  return new EnvHttpProxyAgent({ ...proxy, ...timeouts });
}

/**
 * The upstream URL for `route` (e.g. `/chat/completions`) under the configured base URL: the
 * route goes after the base's path, its query (Azure's `api-version`) stays after the route.
 */
export function upstreamUrl(baseUrl: string | undefined, route: string): URL {
  const url = new URL(baseUrl || DEFAULT_BASE_URL);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}${route}`;
  return url;
}
