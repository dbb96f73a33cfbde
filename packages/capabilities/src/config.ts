import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { schemaProblems } from "@palisade/schema";
import type { ValidateFunction } from "@palisade/schema";
import { ValidationError } from "./errors.js";
import type { Problem } from "./errors.js";
import { parseHostEntry } from "./manifest/hosts.js";
import { ID_PATTERN } from "./manifest/schema.js";
import type { NetworkPolicy } from "./manifest/types.js";
import { SELU_ONLY_KEYS, mcpConfigProblems } from "./mcp/config.js";
import { validateCapabilityConfig } from "./schemas.generated.js";
import type { McpServerConfig } from "./mcp/config.js";

/** How one capability runs: Palisade configuration, not manifest. At most one launch mode. */
export interface CapabilityConfig {
  id: string;
  /** Path of `manifest.yaml` (or of its directory). */
  manifest: string;
  /** Spawn a local process (argv) in a scrubbed environment; how it is reached: `protocol`. */
  command?: string[];
  /**
   * How a `command` is launched and reached. `palisade` (capabilities written with the Palisade
   * SDK, the built-ins): a unix socket in the Engine's 0700 runtime directory and a per-launch
   * secret required on every call. `selu` (the default: servers that only know the Selu
   * convention): PORT on 127.0.0.1, no authentication, so any local process can call it.
   */
  protocol?: "palisade" | "selu";
  cwd?: string;
  env?: Record<string, string>;
  /**
   * Reach an already running server: `host:port` or `unix:/path`. A non-loopback host is reached
   * over TLS (system roots, or `tls.ca`) unless `insecure: true`.
   */
  address?: string;
  /** TLS for `address`: CA to verify the server with, and a client certificate and key (mTLS). */
  tls?: CapabilityTlsConfig;
  /** Plain TCP to a non-loopback `address` (no TLS): anyone on the path can read and change calls. */
  insecure?: boolean;
  /** Run a Docker image (needs a Docker engine). Defaults to the manifest's `image` when no mode is set. */
  image?: string;
  /** Host directory for `filesystem: workspace` capabilities run from an image. */
  workspace?: string;
  enabled?: boolean;
  /** Default Invoke deadline (120 s). */
  timeoutMs?: number;
  /** Deadline per tool name. */
  perToolTimeoutMs?: Record<string, number>;
  /** Extra keys sent in config_json (credentials are added on top). */
  config?: Record<string, unknown>;
  /** System-scope credential values (only names the manifest declares are sent). */
  credentials?: Record<string, string>;
  /** Crash restarts allowed in `command` mode before the capability is failed (3). */
  maxRestarts?: number;
  /** `command` mode: run in a bubblewrap sandbox built from the manifest (default true). */
  sandbox?: boolean;
  /** Replaces the manifest's network mode (the sandbox's and the Shield's). */
  networkMode?: "none" | "allowlist" | "any";
  /** Hosts added to the manifest's network allowlist. */
  allowHosts?: string[];
  /** What each tool's arguments mean to the Shield, by tool name (wins over the manifest's `semantics:`). */
  semantics?: Record<string, Record<string, unknown>>;
}

/** An MCP server as a capability: no manifest, its tools come from the server. */
export interface McpCapabilityConfig {
  id: string;
  mcp: McpServerConfig;
  enabled?: boolean;
  /** Default tools/call deadline (120 s). */
  timeoutMs?: number;
  perToolTimeoutMs?: Record<string, number>;
  /** Restarts of a stdio server (or reconnects to an HTTP one) before it is failed (3). */
  maxRestarts?: number;
  /** What the server may reach; the Shield and the sandbox use it (default none). */
  network?: NetworkPolicy;
  /** What a stdio server may touch (default workspace). */
  filesystem?: "none" | "temp" | "workspace";
  /** What each tool's arguments mean to the Shield, by tool name (the server declares none). */
  semantics?: Record<string, Record<string, unknown>>;
}

/** Any entry of the `capabilities:` list. */
export type AnyCapabilityConfig = CapabilityConfig | McpCapabilityConfig;

export function isMcpConfig(c: AnyCapabilityConfig): c is McpCapabilityConfig {
  return "mcp" in c && c.mcp !== undefined;
}

export interface CapabilityTlsConfig {
  /** PEM file of the CA (or self-signed certificate) the server's certificate must chain to; default: system roots. */
  ca?: string;
  /** PEM client certificate (mTLS); needs `key`. */
  cert?: string;
  /** PEM private key of `cert`. */
  key?: string;
  /** Name to verify the server's certificate against, when it differs from the address's host. */
  serverName?: string;
}

const positive = { type: "integer", minimum: 1 } as const;
const stringMap = { type: "object", additionalProperties: { type: "string" } } as const;

export const capabilityConfigSchema = {
  type: "object",
  required: ["id"],
  additionalProperties: false,
  properties: {
    id: { type: "string", pattern: ID_PATTERN, "x-message": "must be lowercase letters, digits and single hyphens" },
    manifest: { type: "string", minLength: 1 },
    command: { type: "array", minItems: 1, items: { type: "string", minLength: 1 } },
    protocol: { enum: ["palisade", "selu"] },
    cwd: { type: "string", minLength: 1 },
    env: stringMap,
    address: {
      type: "string",
      pattern: "^(unix:.+|[^\\s:]+:\\d+|\\[[0-9a-fA-F:.]+\\]:\\d+)$",
      "x-message": "must be host:port, [ipv6]:port or unix:/path",
    },
    tls: {
      type: "object",
      additionalProperties: false,
      properties: {
        ca: { type: "string", minLength: 1 },
        cert: { type: "string", minLength: 1 },
        key: { type: "string", minLength: 1 },
        serverName: { type: "string", minLength: 1 },
      },
    },
    insecure: { type: "boolean" },
    image: { type: "string", minLength: 1 },
    workspace: { type: "string", minLength: 1 },
    enabled: { type: "boolean" },
    timeoutMs: positive,
    perToolTimeoutMs: { type: "object", additionalProperties: positive },
    config: { type: "object" },
    credentials: stringMap,
    maxRestarts: { type: "integer", minimum: 0 },
    sandbox: { type: "boolean" },
    networkMode: { enum: ["none", "allowlist", "any"] },
    allowHosts: { type: "array", items: { type: "string", minLength: 1 } },
    mcp: { type: "object" },
    network: {
      type: "object",
      required: ["mode"],
      additionalProperties: false,
      properties: {
        mode: { enum: ["none", "allowlist", "any"] },
        hosts: { type: "array", items: { type: "string", minLength: 1 } },
      },
    },
    filesystem: { enum: ["none", "temp", "workspace"] },
    semantics: {
      type: "object",
      additionalProperties: { type: "object" },
      description:
        "must map tool names to semantics blocks (kind, recipients, hosts, paths, commands, content, model_facing, method)",
    },
  },
} as const;

// Compiled ahead of time (`npx tsx scripts/schemas.mjs`).
const validateOne = validateCapabilityConfig as unknown as ValidateFunction;

/**
 * Validates a list of capability configs (e.g. the `capabilities:` list of the Engine's config
 * file). Reports every problem with its path (`capabilities[2].command`); relative `manifest`
 * and `cwd` paths, and without `cwd` relative paths in `command`, are resolved against `baseDir`
 * (see launchCommand). Throws ValidationError when anything is wrong.
 */
export function validateCapabilityConfigs(
  value: unknown,
  options: { file?: string; path?: string; baseDir?: string } = {},
): AnyCapabilityConfig[] {
  const file = options.file ?? "config";
  const base = options.path ?? "capabilities";
  const problems: Problem[] = [];
  if (!Array.isArray(value)) {
    throw new ValidationError("invalid_config", `${file}`, [
      { file, path: base, message: "must be a list of capabilities" },
    ]);
  }
  const seen = new Map<string, number>();
  value.forEach((item, i) => {
    const at = `${base}[${i}]`;
    if (!validateOne(item)) {
      for (const p of schemaProblems(validateOne.errors, { base: at }))
        problems.push({ file, path: p.path, message: p.message });
      return;
    }
    const raw = item as Record<string, unknown>;
    const id = String(raw.id);
    const first = seen.get(id);
    if (first !== undefined)
      problems.push({ file, path: `${at}.id`, message: `duplicate capability id "${id}" (also ${base}[${first}])` });
    else seen.set(id, i);
    if (raw.mcp !== undefined) {
      const m = raw;
      for (const key of SELU_ONLY_KEYS) {
        if (m[key] !== undefined)
          problems.push({
            file,
            path: `${at}.${key}`,
            message:
              key === "command" || key === "env" || key === "cwd"
                ? `goes under mcp: for an MCP server (mcp.${key})`
                : "is not used with mcp: (an MCP server has no Selu manifest)",
          });
      }
      problems.push(...mcpConfigProblems(m.mcp, `${at}.mcp`, file));
      return;
    }
    const c = item as CapabilityConfig;
    if (c.manifest === undefined) {
      problems.push({
        file,
        path: `${at}.manifest`,
        message: "is required (the path of a Selu manifest.yaml), or set mcp: for an MCP server",
      });
      return;
    }
    for (const key of ["network", "filesystem"] as const) {
      if (raw[key] !== undefined)
        problems.push({
          file,
          path: `${at}.${key}`,
          message: "comes from the capability's manifest (set it there); it is only a config field for mcp: servers",
        });
    }
    const modes = (["command", "address", "image"] as const).filter((m) => c[m] !== undefined);
    if (modes.length > 1)
      problems.push({ file, path: at, message: `set only one of command, address, image (got ${modes.join(", ")})` });
    if (c.cwd !== undefined && c.command === undefined)
      problems.push({ file, path: `${at}.cwd`, message: "is only used with command" });
    if (c.protocol !== undefined && c.command === undefined)
      problems.push({ file, path: `${at}.protocol`, message: "is only used with command" });
    problems.push(...channelProblems(c, at, options.baseDir).map((p) => ({ file, ...p })));
    (c.allowHosts ?? []).forEach((h, j) => {
      const parsed = parseHostEntry(h);
      if ("error" in parsed) problems.push({ file, path: `${at}.allowHosts[${j}]`, message: parsed.error });
    });
  });
  if (problems.length > 0) throw new ValidationError("invalid_config", file, problems);
  const baseDir = options.baseDir;
  return (value as AnyCapabilityConfig[]).map((c) => {
    if (isMcpConfig(c)) return mcpPaths(c, baseDir);
    const command =
      c.command === undefined ? {} : { command: launchCommand(c.command, c.cwd === undefined ? baseDir : undefined) };
    if (baseDir === undefined) return { ...c, ...command };
    return {
      ...c,
      ...command,
      manifest: absolute(baseDir, c.manifest),
      ...(c.cwd === undefined ? {} : { cwd: absolute(baseDir, c.cwd) }),
      ...(c.workspace === undefined ? {} : { workspace: absolute(baseDir, c.workspace) }),
      ...(c.tls === undefined ? {} : { tls: tlsPaths(baseDir, c.tls) }),
    };
  });
}

/** A stdio server's `node` is Palisade's Node; its relative paths stay relative to where it starts (mcp.cwd, else the workspace). */
function mcpPaths(c: McpCapabilityConfig, baseDir: string | undefined): McpCapabilityConfig {
  if (!("command" in c.mcp)) return c;
  return {
    ...c,
    mcp: {
      ...c.mcp,
      command: launchCommand(c.mcp.command),
      ...(c.mcp.cwd === undefined || baseDir === undefined ? {} : { cwd: absolute(baseDir, c.mcp.cwd) }),
    },
  };
}

/** True for `127.x.x.x:port`, `localhost:port` and `[::1]:port`: a host name that merely resolves to loopback is not. */
export function isLoopbackAddress(address: string): boolean {
  const m = /^(.*):(\d{1,5})$/.exec(address);
  const host = m?.[1] ?? "";
  return host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** TLS and `insecure`: only for TCP addresses, not both, the files readable. */
function channelProblems(c: CapabilityConfig, at: string, baseDir: string | undefined): Omit<Problem, "file">[] {
  const out: Omit<Problem, "file">[] = [];
  const tcp = c.address !== undefined && !c.address.startsWith("unix:");
  if (c.tls !== undefined && !tcp)
    out.push({
      path: `${at}.tls`,
      message: "is only used with a host:port address (a unix socket or a launched command has no TLS)",
    });
  if (c.insecure !== undefined && !tcp)
    out.push({ path: `${at}.insecure`, message: "is only used with a host:port address" });
  if (c.tls !== undefined && c.insecure === true)
    out.push({ path: `${at}.insecure`, message: "contradicts tls: remove one of them" });
  const tls = c.tls;
  if (tls === undefined || !tcp) return out;
  if ((tls.cert === undefined) !== (tls.key === undefined)) {
    out.push({
      path: `${at}.tls.${tls.cert === undefined ? "cert" : "key"}`,
      message:
        "is required with tls.cert and tls.key: a client certificate needs its private key (set both, or neither)",
    });
  }
  for (const field of ["ca", "cert", "key"] as const) {
    const p = tls[field];
    if (p === undefined) continue;
    const full = baseDir === undefined ? p : absolute(baseDir, p);
    const problem = unreadableFile(full);
    if (problem) out.push({ path: `${at}.tls.${field}`, message: `${problem}: give the path of a PEM file` });
  }
  return out;
}

function unreadableFile(path: string): string | undefined {
  try {
    if (!statSync(path).isFile()) return `${path} is not a file`;
    accessSync(path, constants.R_OK);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? `${path} does not exist` : `cannot read ${path} (${code ?? String(err)})`;
  }
}

function tlsPaths(baseDir: string, tls: CapabilityTlsConfig): CapabilityTlsConfig {
  return {
    ...tls,
    ...(tls.ca === undefined ? {} : { ca: absolute(baseDir, tls.ca) }),
    ...(tls.cert === undefined ? {} : { cert: absolute(baseDir, tls.cert) }),
    ...(tls.key === undefined ? {} : { key: absolute(baseDir, tls.key) }),
  };
}

function absolute(baseDir: string, p: string): string {
  return isAbsolute(p) ? p : resolve(baseDir, p);
}

/**
 * A launch command as it will run: `node` as the program is the Node this process runs on (the
 * one Palisade needs, >= 22.12), not the first `node` on PATH; with `baseDir` (no `cwd:` given),
 * the program and each argument that is a relative path (contains a `/`, no white space, does
 * not start with `-`, is no URL) are resolved against it: the config file's directory.
 */
export function launchCommand(command: readonly string[], baseDir?: string): string[] {
  return command.map((word, i) => {
    if (i === 0 && word === "node") return process.execPath;
    // a shell snippet (`sh -c "cd x && ./run"`) or an option is not a path
    if (baseDir === undefined || isAbsolute(word) || !word.includes("/") || word.startsWith("-") || /\s/.test(word))
      return word;
    if (/^[a-z][a-z0-9+.-]*:/i.test(word)) return word;
    return resolve(baseDir, word);
  });
}
