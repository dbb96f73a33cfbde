import { createHash, randomBytes, verify } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { createServer } from "node:http";
import type { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/**
 * An OAuth 2.1 authorization server and the MCP server it protects, on one loopback port:
 * RFC 9728 protected-resource metadata, RFC 8414 metadata, RFC 7591 registration, an authorize
 * endpoint that approves at once (the user said yes) and checks S256, a token endpoint that
 * checks PKCE and refreshes, and revocation of everything it issued. With `machine` set it also
 * grants client_credentials to that one client, authenticated by client_secret_basic or by an
 * ES256 private_key_jwt assertion (RFC 7523) it verifies with the client's public key.
 */
export class OAuthRig {
  url = "";
  machine: { clientId: string; clientSecret?: string; publicKey?: KeyObject } | undefined;
  /** How each client_credentials request authenticated: `basic <id>`, `jwt <iss>`, or `refused: why`. */
  readonly clientAuth: string[] = [];
  /** Every token request's grant type, in order. */
  readonly grants: string[] = [];
  readonly challengeMethods: string[] = [];
  /** Authorization headers the MCP endpoint saw. */
  readonly bearers: string[] = [];
  accessTtlMs = 60_000;
  registrations = 0;
  private readonly codes = new Map<string, { challenge: string; redirectUri: string }>();
  private readonly access = new Map<string, number>();
  private readonly refresh = new Set<string>();
  private http: HttpServer | undefined;

  async start(): Promise<string> {
    this.http = createServer(
      (req, res) => void this.route(req, res).catch((err: unknown) => res.writeHead(500).end(String(err))),
    );
    await new Promise<void>((r) => this.http?.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
    return `${this.url}/mcp`;
  }

  async stop(): Promise<void> {
    this.http?.closeAllConnections();
    await new Promise<void>((r) => this.http?.close(() => r()));
  }

  /** The user revoked Palisade's access: no token it holds works any more. */
  revokeAll(): void {
    this.access.clear();
    this.refresh.clear();
  }

  private issue(): { access_token: string; refresh_token: string; token_type: string; expires_in: number } {
    const access_token = `at-${randomBytes(12).toString("hex")}`;
    const refresh_token = `rt-${randomBytes(12).toString("hex")}`;
    this.access.set(access_token, Date.now() + this.accessTtlMs);
    this.refresh.add(refresh_token);
    return { access_token, refresh_token, token_type: "Bearer", expires_in: Math.ceil(this.accessTtlMs / 1000) };
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const u = new URL(req.url ?? "/", this.url);
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      void res
        .writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers })
        .end(JSON.stringify(body));
    if (u.pathname.startsWith("/.well-known/oauth-protected-resource"))
      return json(200, { resource: `${this.url}/mcp`, authorization_servers: [this.url] });
    if (u.pathname === "/.well-known/oauth-authorization-server") {
      return json(200, {
        issuer: this.url,
        authorization_endpoint: `${this.url}/authorize`,
        token_endpoint: `${this.url}/token`,
        registration_endpoint: `${this.url}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none", "client_secret_basic", "private_key_jwt"],
        token_endpoint_auth_signing_alg_values_supported: ["ES256"],
      });
    }
    if (u.pathname === "/register") this.registrations++;
    if (u.pathname === "/register")
      return json(201, {
        ...(JSON.parse(await body(req)) as object),
        client_id: `client-${randomBytes(4).toString("hex")}`,
      });
    if (u.pathname === "/authorize") {
      const q = u.searchParams;
      this.challengeMethods.push(q.get("code_challenge_method") ?? "");
      if (q.get("code_challenge_method") !== "S256") return void res.writeHead(400).end("S256 required");
      const code = `code-${randomBytes(8).toString("hex")}`;
      this.codes.set(code, { challenge: q.get("code_challenge") ?? "", redirectUri: q.get("redirect_uri") ?? "" });
      const back = new URL(q.get("redirect_uri") ?? "");
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state") ?? "");
      return void res.writeHead(302, { location: back.toString() }).end();
    }
    if (u.pathname === "/token") {
      const p = new URLSearchParams(await body(req));
      const grant = p.get("grant_type") ?? "";
      this.grants.push(grant);
      if (grant === "authorization_code") {
        const c = this.codes.get(p.get("code") ?? "");
        this.codes.delete(p.get("code") ?? "");
        const verifier = createHash("sha256")
          .update(p.get("code_verifier") ?? "")
          .digest("base64url");
        if (!c || c.challenge !== verifier || c.redirectUri !== p.get("redirect_uri"))
          return json(400, { error: "invalid_grant" });
        return json(200, this.issue());
      }
      if (grant === "refresh_token" && this.refresh.delete(p.get("refresh_token") ?? ""))
        return json(200, this.issue());
      if (grant === "client_credentials") {
        const who = this.machineClient(req.headers.authorization ?? "", p);
        this.clientAuth.push(who);
        if (who.startsWith("refused")) return json(401, { error: "invalid_client", error_description: who });
        const { access_token, token_type, expires_in } = this.issue();
        return json(200, { access_token, token_type, expires_in });
      }
      return json(400, { error: "invalid_grant", error_description: "the refresh token was revoked" });
    }
    if (u.pathname === "/mcp") {
      const auth = req.headers.authorization ?? "";
      this.bearers.push(auth);
      const expires = this.access.get(auth.replace(/^Bearer /, ""));
      if (expires === undefined || expires < Date.now()) {
        return json(
          401,
          { error: "invalid_token" },
          { "www-authenticate": `Bearer resource_metadata="${this.url}/.well-known/oauth-protected-resource/mcp"` },
        );
      }
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await mcpServer(auth).connect(transport);
      return transport.handleRequest(req, res);
    }
    res.writeHead(404).end();
  }

  /** Who a client_credentials request authenticated as, or why it is refused. */
  private machineClient(authorization: string, p: URLSearchParams): string {
    const m = this.machine;
    if (!m) return "refused: no client_credentials client is registered";
    if (authorization.startsWith("Basic ")) {
      const [id, secret] = Buffer.from(authorization.slice(6), "base64").toString("utf8").split(":");
      const ok =
        m.clientSecret !== undefined && id === m.clientId && decodeURIComponent(secret ?? "") === m.clientSecret;
      return ok ? `basic ${id}` : "refused: wrong client secret";
    }
    const assertion = p.get("client_assertion") ?? "";
    if (p.get("client_assertion_type") !== "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" || !m.publicKey)
      return "refused: no client authentication";
    const [head = "", body = "", sig = ""] = assertion.split(".");
    const signed = verify(
      "sha256",
      Buffer.from(`${head}.${body}`),
      { key: m.publicKey, dsaEncoding: "ieee-p1363" },
      Buffer.from(sig, "base64url"),
    );
    const claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Record<string, unknown>;
    const audiences = [claims.aud].flat();
    if (!signed) return "refused: the assertion's signature does not verify";
    if (claims.iss !== m.clientId || claims.sub !== m.clientId) return "refused: iss/sub is not the client";
    if (!audiences.some((a) => a === this.url || a === `${this.url}/`)) return "refused: aud is not this issuer";
    return `jwt ${String(claims.iss)}`;
  }
}

/** `whoami` says who is signed in; `echo-authorization` returns the request's Authorization header (a server that leaks it). */
function mcpServer(authorization: string): Server {
  const server = new Server({ name: "protected", version: "1.0.0" }, { capabilities: { tools: {} } });
  const empty = { type: "object" as const, properties: {} };
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: "whoami", description: "Who is signed in", inputSchema: empty },
      { name: "echo-authorization", description: "Echoes the Authorization header", inputSchema: empty },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: [{ type: "text", text: request.params.name === "whoami" ? "alice" : `you sent: ${authorization}` }],
  }));
  return server;
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
