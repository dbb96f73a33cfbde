import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from "@modelcontextprotocol/client";
import { CapabilityError } from "../errors.js";
import type { McpOAuthConfig } from "./config.js";
import type { OAuthStore } from "./oauth-store.js";

/** The browser step of a login: where the user is sent, and what comes back on the redirect. */
export interface Authorize {
  redirectUrl: string;
  /** The OAuth `state` the callback must bring back. */
  state: string;
  /** Sends the user to `url` (prints it, opens a browser); the redirect's query comes back through the listener. */
  open: (url: URL) => void | Promise<void>;
}

/** Raised where only a person can help: no token, or a refresh the server refused. */
export class LoginRequiredError extends CapabilityError {
  constructor(capabilityId: string, why: string) {
    super(
      "missing_credential",
      `MCP server ${capabilityId} needs you to log in (${why}): run \`palisade capability login ${capabilityId}\`, which opens the server's sign-in page (or prints its URL), then restart the Engine`,
    );
  }
}

/**
 * Palisade's OAuth client for one HTTP MCP server, on top of the SDK's `auth()` (RFC 9728 and
 * RFC 8414 discovery, client ID metadata documents, dynamic registration as the fallback, PKCE
 * S256, refresh). In the Engine (`authorize` absent) it only uses and refreshes what a login
 * stored; in `palisade capability login` it also sends the user to the sign-in page.
 */
export class PalisadeOAuthProvider implements OAuthClientProvider {
  constructor(
    private readonly store: OAuthStore,
    private readonly config: McpOAuthConfig,
    private readonly clientSecret: string | undefined,
    private readonly authorize?: Authorize,
  ) {}

  state(): string {
    return this.authorize?.state ?? "";
  }

  get redirectUrl(): string {
    return this.authorize?.redirectUrl ?? "http://127.0.0.1/callback";
  }

  get clientMetadataUrl(): string | undefined {
    return this.config.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Palisade",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: this.clientSecret ? "client_secret_basic" : "none",
      ...(this.config.scope ? { scope: this.config.scope } : {}),
    };
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    if (this.config.clientId)
      return { client_id: this.config.clientId, ...(this.clientSecret ? { client_secret: this.clientSecret } : {}) };
    return (await this.store.read()).client;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    await this.store.update((s) => (s.client = info));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.store.read()).tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.store.update((s) => (s.tokens = tokens));
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (!this.authorize) {
      const scope = url.searchParams.get("scope") ?? undefined;
      const had = (await this.store.read()).tokens;
      // A server that wants more than was granted (403 insufficient_scope): the next login asks for it.
      if (had && scope && scope !== had.scope) {
        await this.store.update((s) => (s.pendingScope = scope));
        throw new LoginRequiredError(this.store.capabilityId, `it asks for more access than was granted: ${scope}`);
      }
      throw new LoginRequiredError(
        this.store.capabilityId,
        had ? "its token was refused and could not be refreshed" : "no token is stored",
      );
    }
    await this.authorize.open(url);
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    await this.store.update((s) => (s.verifier = verifier));
  }

  async codeVerifier(): Promise<string> {
    const v = (await this.store.read()).verifier;
    if (!v)
      throw new CapabilityError(
        "invalid_config",
        `no login of MCP server ${this.store.capabilityId} is in progress (no PKCE verifier): start it again`,
      );
    return v;
  }

  /**
   * Discovery is kept for one login only (with the PKCE verifier), so its callback is checked
   * against the authorization server it started with; the Engine discovers afresh each time.
   */
  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    if (this.authorize) await this.store.update((s) => (s.discovery = state));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return this.authorize ? (await this.store.read()).discovery : undefined;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    await this.store.update((s) => {
      if (scope === "all" || scope === "tokens") delete s.tokens;
      if (scope === "all" || scope === "client") delete s.client;
      if (scope === "all" || scope === "verifier") delete s.verifier;
      if (scope === "all" || scope === "discovery") delete s.discovery;
    });
  }
}
