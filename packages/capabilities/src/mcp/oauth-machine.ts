import type { OAuthClientProvider, OAuthTokens } from "@modelcontextprotocol/client";
import { CapabilityError } from "../errors.js";
import type { McpOAuthConfig } from "./config.js";
import { loadMcpSdk } from "./sdk.js";

/** The resolved credential of a `client_credentials` client: its secret, or the key that signs its assertions. */
export type MachineCredential = { clientSecret: string } | { privateKey: string };

/**
 * The Engine's OAuth client for a server configured with `grant: client_credentials`: it asks
 * the token endpoint for a token as the client `clientId`, authenticated with
 * `client_secret_basic` or a `private_key_jwt` assertion (RFC 7523), again whenever the server
 * refuses the one it has. The token is kept in memory only and handed to `onToken` (redaction)
 * before it is used.
 */
export async function machineOAuthProvider(
  config: McpOAuthConfig & { clientId: string },
  credential: MachineCredential,
  onToken: (token: string) => void,
): Promise<OAuthClientProvider> {
  const { ClientCredentialsProvider, PrivateKeyJwtProvider } = await loadMcpSdk();
  const common = {
    clientId: config.clientId,
    clientName: "Palisade",
    ...(config.scope ? { scope: config.scope } : {}),
    ...(config.issuer ? { expectedIssuer: config.issuer } : {}),
  };
  const provider =
    "clientSecret" in credential
      ? new ClientCredentialsProvider({ ...common, clientSecret: credential.clientSecret })
      : new PrivateKeyJwtProvider({
          ...common,
          privateKey: credential.privateKey,
          algorithm: config.signingAlgorithm ?? "ES256",
        });
  const save = provider.saveTokens.bind(provider);
  provider.saveTokens = (tokens: OAuthTokens): void => {
    onToken(tokens.access_token);
    if (tokens.refresh_token) onToken(tokens.refresh_token);
    save(tokens);
  };
  return provider;
}

/**
 * A start error of a `client_credentials` client that only the configuration can fix: the token
 * endpoint refused the client, or the server named another authorization server than
 * `oauth.issuer`. Undefined for anything else (e.g. the server is down: worth a retry).
 */
export async function machineRefusal(
  capabilityId: string,
  config: McpOAuthConfig & { clientId: string },
  err: unknown,
  redact: (t: string) => string,
): Promise<CapabilityError | undefined> {
  const { OAuthError, OAuthClientFlowError } = await loadMcpSdk();
  const credential = /^\$\{secret:(\w+)\}$/.exec(config.clientSecret ?? config.privateKey ?? "")?.[1] ?? "<name>";
  for (let e: unknown = err, i = 0; e instanceof Error && i < 5; e = (e as Error).cause, i++) {
    if (OAuthError.isInstance(e))
      return new CapabilityError(
        "missing_credential",
        `the authorization server refused the client credentials of ${config.clientId} for MCP server ${capabilityId} (${redact(`${e.code}: ${e.message}`)}): check oauth.clientId and the stored ${config.clientSecret ? "secret" : "key"}, set it again with \`palisade capability credentials set ${capabilityId} ${credential}\`, then restart the Engine`,
      );
    if (OAuthClientFlowError.isInstance(e))
      return new CapabilityError(
        "invalid_config",
        `MCP server ${capabilityId}: ${redact(e.message)}; the credential of ${config.clientId} was not sent. Check oauth.issuer against the authorization server the client is registered with`,
      );
  }
  return undefined;
}
