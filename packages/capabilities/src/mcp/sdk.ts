// The MCP SDK's runtime values, loaded when the first MCP server connects: the SDK and the zod it
// brings cost ~170 ms of CPU to load, which an Engine without MCP servers should not pay at start.
// This is the v2 client (@modelcontextprotocol/client): it speaks 2026-07-28 (server/discover,
// per-request _meta and headers, input-required results) and falls back to 2025-11-25 and older.
import type {
  Client,
  ClientCredentialsProvider,
  OAuthClientFlowError,
  OAuthError,
  PrivateKeyJwtProvider,
  ProtocolError,
  SdkError,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  auth,
} from "@modelcontextprotocol/client";
import type { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

export interface McpSdk {
  Client: typeof Client;
  StdioClientTransport: typeof StdioClientTransport;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  ProtocolError: typeof ProtocolError;
  SdkError: typeof SdkError;
  UnauthorizedError: typeof UnauthorizedError;
  auth: typeof auth;
  ClientCredentialsProvider: typeof ClientCredentialsProvider;
  PrivateKeyJwtProvider: typeof PrivateKeyJwtProvider;
  OAuthError: typeof OAuthError;
  OAuthClientFlowError: typeof OAuthClientFlowError;
}

let loading: Promise<McpSdk> | undefined;

export function loadMcpSdk(): Promise<McpSdk> {
  return (loading ??= Promise.all([
    import("@modelcontextprotocol/client"),
    import("@modelcontextprotocol/client/stdio"),
  ]).then(([sdk, stdio]) => ({
    Client: sdk.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: sdk.StreamableHTTPClientTransport,
    ProtocolError: sdk.ProtocolError,
    SdkError: sdk.SdkError,
    UnauthorizedError: sdk.UnauthorizedError,
    auth: sdk.auth,
    ClientCredentialsProvider: sdk.ClientCredentialsProvider,
    PrivateKeyJwtProvider: sdk.PrivateKeyJwtProvider,
    OAuthError: sdk.OAuthError,
    OAuthClientFlowError: sdk.OAuthClientFlowError,
  })));
}
