import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { AGENT_ENV } from "./config.js";

export interface AgentLaunchOptions {
  engineAddress: string;
  token: string;
  model: string;
  agentId?: string;
  baseURL?: string;
  apiKey?: string;
  contextWindow?: number;
  /** Default: the running Node (process.execPath). */
  nodePath?: string;
  /** Default: process.versions.node; decides between --experimental-permission (20) and --permission (22+). */
  nodeVersion?: string;
  /** false: no permission flags (only for `--allow-unsandboxed`). Default true. */
  sandbox?: boolean;
  /** More directories the Agent may read. */
  extraReadPaths?: string[];
}

export interface LaunchSpec {
  command: string;
  args: string[];
  /** The complete environment (nothing inherited). */
  env: Record<string, string>;
  /** The directories the Agent may read. */
  readPaths: string[];
}

/** Root of the @palisade/agent package (this file is in src/ or dist/). */
export function agentPackageDir(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "..");
}

function nodeModulesChain(from: string): string[] {
  const out: string[] = [];
  for (let dir = from; ; dir = dirname(dir)) {
    const nm = join(dir, "node_modules");
    if (existsSync(nm)) out.push(realpathSync(nm));
    if (dirname(dir) === dir) return out;
  }
}

/** Real directories of the workspace packages `pkgDir` depends on, transitively. */
function workspaceDeps(pkgDir: string, seen = new Set<string>()): string[] {
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    if (!name.startsWith("@palisade/")) continue;
    for (const nm of nodeModulesChain(pkgDir)) {
      const link = join(nm, name);
      if (!existsSync(link)) continue;
      const real = realpathSync(link);
      if (!seen.has(real)) {
        seen.add(real);
        workspaceDeps(real, seen);
      }
      break;
    }
  }
  return [...seen];
}

/**
 * The command line that runs the compiled Agent under Node's permission model: no fs writes, no
 * child processes, no workers, no addons, fs reads only of its own code (its package, the real
 * paths of the workspace packages it imports, node_modules), and an environment reduced to the
 * Engine address, the per-spawn token and the model settings.
 */
export function agentLaunchSpec(options: AgentLaunchOptions): LaunchSpec {
  const pkgDir = realpathSync(agentPackageDir());
  const main = join(pkgDir, "dist", "main.js");
  const version = options.nodeVersion ?? process.versions.node;
  const major = Number(version.split(".")[0]);
  const readPaths = [...new Set([pkgDir, ...workspaceDeps(pkgDir), ...nodeModulesChain(pkgDir), ...(options.extraReadPaths ?? [])])];

  const args: string[] = [];
  if (options.sandbox !== false) {
    args.push(major >= 22 ? "--permission" : "--experimental-permission", "--disable-warning=ExperimentalWarning");
    // Node 20 grants a directory's contents with a trailing `/*` (checked here). Only Node 20 is
    // installed on this machine, so 22+ gets both spellings its docs describe, the directory
    // itself and the wildcard.
    for (const p of readPaths) {
      if (major >= 22) args.push(`--allow-fs-read=${p}`);
      args.push(`--allow-fs-read=${p}/*`);
    }
  }
  args.push(main);

  const env: Record<string, string> = {
    [AGENT_ENV.engineAddress]: options.engineAddress,
    [AGENT_ENV.token]: options.token,
    [AGENT_ENV.model]: options.model,
  };
  if (options.agentId) env[AGENT_ENV.agentId] = options.agentId;
  if (options.baseURL) env[AGENT_ENV.baseURL] = options.baseURL;
  if (options.apiKey) env[AGENT_ENV.apiKey] = options.apiKey;
  if (options.contextWindow) env[AGENT_ENV.contextWindow] = String(options.contextWindow);
  return { command: options.nodePath ?? process.execPath, args, env, readPaths };
}
