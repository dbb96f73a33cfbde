import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { McpCapabilityConfig } from "../config.js";
import { CapabilityError } from "../errors.js";
import { CLIENT_INFO } from "./connect.js";
import type { McpHttpConfig } from "./config.js";
import { PalisadeOAuthProvider } from "./oauth-provider.js";
import { OAuthStore } from "./oauth-store.js";
import { loadMcpSdk } from "./sdk.js";

export interface LoginOptions {
  config: McpCapabilityConfig;
  /** Palisade's credential store (`<data dir>/credentials.json`): where the tokens go. */
  credentialsFile: string;
  /** `oauth.clientSecret` with its `${secret:…}` resolved. */
  clientSecret?: string;
  /** Static headers with secrets resolved. */
  headers?: Record<string, string>;
  /** Sends the user to the sign-in page: print the URL, open a browser. */
  open: (url: URL) => void | Promise<void>;
  signal?: AbortSignal;
  /** How long to wait for the sign-in (5 minutes). */
  timeoutMs?: number;
}

export interface LoginResult {
  /** False when the server let Palisade in without signing in. */
  authorized: boolean;
  toolCount: number;
}

const PAGE =
  "<!doctype html><title>Palisade</title><p>Signed in: you can close this tab and go back to the terminal.</p>";

/**
 * Signs Palisade in to an HTTP MCP server: reaches it, follows its 401 to the authorization
 * server, sends the user to the sign-in page with a loopback redirect (127.0.0.1, a port chosen
 * now), checks the returned `state` (and `iss`, in the SDK), exchanges the code (PKCE S256) and
 * stores the tokens in the credential store, then lists the server's tools with them.
 */
export async function loginMcpServer(opts: LoginOptions): Promise<LoginResult> {
  const mcp = opts.config.mcp;
  if (!("url" in mcp))
    throw new CapabilityError(
      "invalid_config",
      `capability ${opts.config.id} is a stdio MCP server: only HTTP servers (mcp: { url: … }) sign in with OAuth`,
    );
  const http = mcp as McpHttpConfig;
  if (http.oauth?.grant === "client_credentials")
    throw new CapabilityError(
      "invalid_config",
      `capability ${opts.config.id} uses grant: client_credentials: the Engine gets its token itself with the client's credential, there is no sign-in`,
    );
  const { Client, StreamableHTTPClientTransport, UnauthorizedError } = await loadMcpSdk();
  const store = OAuthStore.at(opts.credentialsFile, opts.config.id);
  const { pendingScope } = await store.read();
  // A fresh sign-in: an earlier registration names another redirect port.
  await store.clear();
  const state = randomBytes(16).toString("base64url");
  const callback = await listenForCallback(opts.signal, opts.timeoutMs ?? 5 * 60_000);
  try {
    const provider = new PalisadeOAuthProvider(store, http.oauth ?? {}, opts.clientSecret, {
      redirectUrl: callback.url,
      state,
      open: opts.open,
    });
    const transport = new StreamableHTTPClientTransport(new URL(http.url), {
      authProvider: provider,
      requestInit: { headers: opts.headers ?? {} },
    });
    if (pendingScope) {
      // The server asked the Engine for more access: sign in for exactly that scope.
      const { auth } = await loadMcpSdk();
      await auth(provider, { serverUrl: http.url, scope: pendingScope });
    } else {
      const client = new Client(CLIENT_INFO, { capabilities: {}, versionNegotiation: { mode: "auto" } });
      try {
        await client.connect(transport, opts.signal ? { signal: opts.signal } : {});
        const { tools } = await client.listTools();
        return { authorized: false, toolCount: tools.length };
      } catch (err) {
        if (!(err instanceof UnauthorizedError) && !isUnauthorized(err)) throw err;
      } finally {
        await client.close().catch(() => undefined);
      }
    }
    const params = await callback.params;
    if (params.get("state") !== state)
      throw new CapabilityError(
        "invalid_config",
        `the sign-in of ${opts.config.id} came back with another state than was sent: start it again (it may not have been yours)`,
      );
    if (params.has("error"))
      throw new CapabilityError(
        "missing_credential",
        `the authorization server refused the sign-in of ${opts.config.id}: ${params.get("error")}${params.get("error_description") ? ` (${params.get("error_description")})` : ""}`,
      );
    if (pendingScope) {
      const { auth } = await loadMcpSdk();
      const iss = params.get("iss");
      await auth(provider, {
        serverUrl: http.url,
        scope: pendingScope,
        authorizationCode: params.get("code") ?? "",
        ...(iss !== null ? { iss } : {}),
      });
    } else {
      await transport.finishAuth(params);
    }
    await store.update((s) => {
      delete s.verifier;
      delete s.discovery;
      delete s.pendingScope;
    });
    // Signed in: use the stored token as the Engine will.
    const check = new Client(CLIENT_INFO, { capabilities: {}, versionNegotiation: { mode: "auto" } });
    const engineSide = new StreamableHTTPClientTransport(new URL(http.url), {
      authProvider: new PalisadeOAuthProvider(store, http.oauth ?? {}, opts.clientSecret),
      requestInit: { headers: opts.headers ?? {} },
    });
    try {
      await check.connect(engineSide, opts.signal ? { signal: opts.signal } : {});
      const { tools } = await check.listTools();
      return { authorized: true, toolCount: tools.length };
    } finally {
      await check.close().catch(() => undefined);
    }
  } finally {
    callback.close();
  }
}

function isUnauthorized(err: unknown): boolean {
  for (let e: unknown = err, i = 0; e instanceof Error && i < 4; e = e.cause, i++)
    if (e.name === "UnauthorizedError" || /\b401\b|requires authorization/.test(e.message)) return true;
  return false;
}

/** A one-shot listener on 127.0.0.1 for the authorization server's redirect. */
async function listenForCallback(
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<{ url: string; params: Promise<URLSearchParams>; close: () => void }> {
  let resolve!: (p: URLSearchParams) => void;
  let reject!: (e: Error) => void;
  const params = new Promise<URLSearchParams>((res, rej) => ((resolve = res), (reject = rej)));
  params.catch(() => undefined);
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://127.0.0.1");
    if (u.pathname !== "/callback") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    resolve(u.searchParams);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const timer = setTimeout(
    () =>
      reject(
        new CapabilityError(
          "timeout",
          `no sign-in came back within ${Math.round(timeoutMs / 1000)} s: run the login again`,
        ),
      ),
    timeoutMs,
  );
  const onAbort = (): void => reject(new CapabilityError("cancelled", "the login was cancelled"));
  signal?.addEventListener("abort", onAbort, { once: true });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    params,
    close: () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      server.close();
      server.closeAllConnections();
    },
  };
}
