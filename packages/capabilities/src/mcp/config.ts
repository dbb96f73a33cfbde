import { schemaProblems } from "@palisade/schema";
import type { ValidateFunction } from "@palisade/schema";
import type { Problem } from "../errors.js";
import { TOOL_NAME_PATTERN } from "../manifest/schema.js";
import { MANIFEST_POLICIES } from "@palisade/protocol/policy";
import type { ManifestPolicy } from "@palisade/protocol/policy";
import { validateMcpHttp, validateMcpStdio } from "../schemas.generated.js";

/** An MCP server run by the Engine over stdio. Values may contain `${secret:name}`. */
export interface McpStdioConfig {
  command: string[];
  env?: Record<string, string>;
  cwd?: string;
}

/** An MCP server reached over streamable HTTP. Header values may contain `${secret:name}`. */
export interface McpHttpConfig {
  url: string;
  headers?: Record<string, string>;
  /** OAuth 2.1 client settings, for a server that answers 401 (all optional: discovery finds the rest). */
  oauth?: McpOAuthConfig;
}

/** Signing algorithms for `private_key_jwt` client authentication (RFC 7523). */
export const JWT_SIGNING_ALGORITHMS = [
  "ES256",
  "ES384",
  "ES512",
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "EdDSA",
] as const;

export interface McpOAuthConfig {
  /**
   * How Palisade gets its token: `authorization_code` (default: the user signs in with
   * `palisade capability login`) or `client_credentials` (the Engine gets it itself, as the
   * client `clientId`, authenticated by `clientSecret` or by a JWT signed with `privateKey`).
   */
  grant?: "authorization_code" | "client_credentials";
  /** A client registered with the authorization server beforehand (else: metadata document, else dynamic registration). */
  clientId?: string;
  /** Its secret, usually `${secret:name}` (with `client_credentials`: always). */
  clientSecret?: string;
  /** `client_credentials` only: `${secret:name}` of a PKCS#8 PEM key signing the client's JWT assertion (`private_key_jwt`). */
  privateKey?: string;
  /** The key's algorithm (default ES256). */
  signingAlgorithm?: (typeof JWT_SIGNING_ALGORITHMS)[number];
  /** `client_credentials` only: the issuer of the authorization server the client is registered with; the credential goes to no other. */
  issuer?: string;
  /** An https URL where Palisade's client ID metadata document is published, used as the client_id where the server supports it. */
  clientMetadataUrl?: string;
  /** Scope to ask for when the server names none. */
  scope?: string;
}

export type McpServerConfig = (McpStdioConfig | McpHttpConfig) & {
  /** Shield default per tool name, over what the tool's annotations suggest. */
  policy?: Record<string, ManifestPolicy>;
  /** Honour the server's tool annotations (readOnlyHint) as the Shield default (default false). */
  trusted?: boolean;
};

export function isStdio(c: McpServerConfig): c is McpStdioConfig & { policy?: Record<string, ManifestPolicy> } {
  return "command" in c;
}

const stringMap = { type: "object", additionalProperties: { type: "string" } } as const;
const policyMap = {
  type: "object",
  propertyNames: { pattern: TOOL_NAME_PATTERN },
  additionalProperties: { enum: [...MANIFEST_POLICIES] },
} as const;

export const stdioSchema = {
  type: "object",
  required: ["command"],
  additionalProperties: false,
  properties: {
    command: {
      type: "array",
      minItems: 1,
      items: { type: "string", minLength: 1 },
      description: "must be the server's argv, e.g. [npx, -y, some-mcp-server]",
    },
    env: stringMap,
    cwd: { type: "string", minLength: 1 },
    policy: policyMap,
    trusted: { type: "boolean" },
  },
} as const;

export const httpSchema = {
  type: "object",
  required: ["url"],
  additionalProperties: false,
  properties: {
    url: {
      type: "string",
      pattern: "^https?://",
      "x-message": "must be an http:// or https:// URL of the server's MCP endpoint",
    },
    headers: stringMap,
    oauth: {
      type: "object",
      additionalProperties: false,
      properties: {
        grant: { enum: ["authorization_code", "client_credentials"] },
        clientId: { type: "string", minLength: 1 },
        clientSecret: { type: "string", minLength: 1 },
        privateKey: { type: "string", minLength: 1 },
        signingAlgorithm: { enum: JWT_SIGNING_ALGORITHMS },
        issuer: { type: "string", pattern: "^https?://", "x-message": "must be the authorization server's issuer URL" },
        clientMetadataUrl: { type: "string", pattern: "^https://", "x-message": "must be an https:// URL" },
        scope: { type: "string", minLength: 1 },
      },
    },
    policy: policyMap,
    trusted: { type: "boolean" },
  },
} as const;

// Compiled ahead of time (`npx tsx scripts/schemas.mjs`).
const validators = {
  stdio: validateMcpStdio as unknown as ValidateFunction,
  http: validateMcpHttp as unknown as ValidateFunction,
};

/** Capability config keys that only make sense for Selu capabilities. */
export const SELU_ONLY_KEYS = [
  "manifest",
  "command",
  "address",
  "image",
  "config",
  "credentials",
  "cwd",
  "env",
] as const;

const SECRET = /\$\{secret:([^}]*)\}/g;
const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Problems of an `mcp:` value at `at` (e.g. `capabilities[3].mcp`), each with its field path.
 * Checks the shape (stdio `command` or HTTP `url`, not both), the URL and `${secret:name}` names.
 */
export function mcpConfigProblems(value: unknown, at: string, file: string): Problem[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return [{ file, path: at, message: "must be a mapping with either command (stdio) or url (streamable HTTP)" }];
  }
  const v = value as Record<string, unknown>;
  if ("command" in v && "url" in v)
    return [{ file, path: at, message: "set either command (stdio) or url (streamable HTTP), not both" }];
  if (!("command" in v) && !("url" in v))
    return [{ file, path: at, message: "needs command (a stdio server's argv) or url (a streamable HTTP endpoint)" }];
  const validate = "command" in v ? validators.stdio : validators.http;
  if (!validate(v)) return schemaProblems(validate.errors, { base: at }).map((p) => ({ file, ...p }));
  const problems: Problem[] = [];
  if (typeof v.url === "string" && !URL.canParse(v.url))
    problems.push({ file, path: `${at}.url`, message: `is not a valid URL (got ${JSON.stringify(v.url)})` });
  const check = (text: string, path: string): void => {
    for (const m of text.matchAll(SECRET)) {
      if (!SECRET_NAME.test(m[1] ?? ""))
        problems.push({ file, path, message: `\${secret:${m[1] ?? ""}} must name a credential (letters, digits, _)` });
    }
  };
  for (const [k, s] of Object.entries((v.env ?? {}) as Record<string, string>)) check(s, `${at}.env.${k}`);
  for (const [k, s] of Object.entries((v.headers ?? {}) as Record<string, string>)) check(s, `${at}.headers.${k}`);
  const oauth = v.oauth as McpOAuthConfig | undefined;
  if (typeof oauth?.clientSecret === "string") check(oauth.clientSecret, `${at}.oauth.clientSecret`);
  if (typeof oauth?.privateKey === "string") check(oauth.privateKey, `${at}.oauth.privateKey`);
  if (oauth) problems.push(...grantProblems(oauth, `${at}.oauth`, file));
  return problems;
}

const SECRET_REF = /^\$\{secret:[A-Za-z_][A-Za-z0-9_]*\}$/;

/** What each grant needs and forbids: `client_credentials` names its client and one credential, kept as a secret. */
function grantProblems(o: McpOAuthConfig, at: string, file: string): Problem[] {
  const problems: Problem[] = [];
  const bad = (path: string, message: string): void => void problems.push({ file, path: `${at}${path}`, message });
  if (o.grant !== "client_credentials") {
    for (const key of ["privateKey", "signingAlgorithm", "issuer"] as const)
      if (o[key] !== undefined)
        bad(`.${key}`, "is for grant: client_credentials only (the user's sign-in has no use for it)");
    return problems;
  }
  if (o.clientId === undefined)
    bad("", "grant: client_credentials needs clientId: the client registered with the authorization server");
  if (o.clientMetadataUrl !== undefined)
    bad(".clientMetadataUrl", "is for the user's sign-in only: a client_credentials client is registered beforehand");
  if ((o.clientSecret === undefined) === (o.privateKey === undefined))
    bad(
      "",
      "grant: client_credentials needs exactly one of clientSecret (client_secret_basic) or privateKey (private_key_jwt)",
    );
  for (const key of ["clientSecret", "privateKey"] as const) {
    const value = o[key];
    if (value !== undefined && !SECRET_REF.test(value))
      bad(
        `.${key}`,
        `must be a \${secret:name} reference, not the value itself: store it with \`palisade capability credentials set <id> <name>\` and write "\${secret:<name>}"`,
      );
  }
  if (o.signingAlgorithm !== undefined && o.privateKey === undefined)
    bad(".signingAlgorithm", "is the privateKey's algorithm: set privateKey too, or remove it");
  return problems;
}

/** Names of the `${secret:name}` references in a set of values. */
export function secretNames(values: Record<string, string> | undefined): string[] {
  const names = new Set<string>();
  for (const s of Object.values(values ?? {})) for (const m of s.matchAll(SECRET)) if (m[1]) names.add(m[1]);
  return [...names];
}

/** Replaces every `${secret:name}` with its value; `lookup` throws for a missing one. */
export function expandSecrets(
  values: Record<string, string> | undefined,
  lookup: (name: string) => string,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values ?? {}).map(([k, s]) => [k, s.replace(SECRET, (_m, name: string) => lookup(name))]),
  );
}
