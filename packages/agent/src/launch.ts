import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freshBundleEntry } from "./bundle.js";
import { AGENT_ENV } from "./config.js";
import type { ModelSettings } from "./settings.js";

export interface AgentLaunchOptions {
  engineAddress: string;
  model: string;
  agentId?: string;
  /** Unix socket path of the Engine's model gateway: the Agent's only way to the model (it holds no key). */
  modelGateway: string;
  contextWindow?: number;
  /** Request shaping, time limits and retries; sent as JSON (never credentials). */
  modelSettings?: Partial<ModelSettings>;
  /**
   * The Engine's session idle window (limits.sessionIdleMs): the Agent keeps a conversation this
   * long without a turn, as the Engine remembers what it sent (default: HISTORY_IDLE_MS).
   */
  historyIdleMs?: number;
  /** Default: the running Node (process.execPath). */
  nodePath?: string;
  /** false: no permission flags (only for `--allow-unsandboxed`). Default true. */
  sandbox?: boolean;
  /** More packages the process runs (e.g. the sub-agent's): each and its dependencies become readable. */
  extraPackages?: string[];
  /** The script to run (default: the Agent's bundle while it is fresh, else its dist/main.js). */
  main?: string;
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
    if (existsSync(nm)) out.push(nm);
    if (dirname(dir) === dir) return out;
  }
}

function dependencyNames(pkgDir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
  return Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies });
}

/**
 * The directories of the packages `pkgDirs` depend on, transitively, each as the path Node resolves
 * it by (`…/node_modules/<name>`) and as its real path. Node's permission model checks the path as
 * written, without resolving symlinks, so granting a whole node_modules would also grant every
 * workspace package linked there (the Engine's source among them): only this closure is granted.
 */
function dependencyClosure(pkgDirs: string[]): string[] {
  const granted = new Set<string>();
  const visited = new Set<string>();
  const visit = (pkgDir: string): void => {
    if (visited.has(pkgDir)) return;
    visited.add(pkgDir);
    for (const name of dependencyNames(pkgDir)) {
      for (const nm of nodeModulesChain(pkgDir)) {
        const lexical = join(nm, name);
        if (!existsSync(join(lexical, "package.json"))) continue;
        const real = realpathSync(lexical);
        granted.add(lexical);
        granted.add(real);
        visit(real);
        break;
      }
    }
  };
  for (const dir of pkgDirs) visit(realpathSync(dir));
  return [...granted];
}

/** The Agent's entry point: one file (`make build`'s bundle) while it is fresh, else the compiled modules. */
export function agentMain(pkgDir = realpathSync(agentPackageDir())): string {
  return freshBundleEntry(join(pkgDir, "dist", "bundle"), join(pkgDir, "..", "..")) ?? join(pkgDir, "dist", "main.js");
}

/**
 * The command line that runs the compiled Agent under Node's permission model: no fs writes, no
 * child processes, no workers, no addons, no node:sqlite, fs reads only of its own code (its package, the real
 * paths of the workspace packages it imports, node_modules), and an environment reduced to the
 * Engine address, the model name, the model settings and the model gateway's socket (no key).
 * The spawn token is not part of it: whoever starts the process writes it as the first line of
 * its stdin and holds the pipe open (parent.ts).
 */
export function agentLaunchSpec(options: AgentLaunchOptions): LaunchSpec {
  const pkgDir = realpathSync(agentPackageDir());
  const main = options.main ?? agentMain(pkgDir);
  const extra = (options.extraPackages ?? []).map((p) => realpathSync(p));
  const readPaths = [...new Set([pkgDir, ...extra, ...dependencyClosure([pkgDir, ...extra])])];

  const args: string[] = [];
  if (options.sandbox !== false) {
    // Node >= 22 (the project's floor): a granted directory covers everything below it.
    // node:sqlite opens files by path without asking the permission model: it is removed.
    args.push("--permission", "--no-experimental-sqlite", "--disable-warning=ExperimentalWarning");
    for (const p of readPaths) args.push(`--allow-fs-read=${p}`);
  }
  args.push(main);

  const env: Record<string, string> = {
    [AGENT_ENV.engineAddress]: options.engineAddress,
    [AGENT_ENV.model]: options.model,
    [AGENT_ENV.modelGateway]: options.modelGateway,
  };
  if (options.agentId) env[AGENT_ENV.agentId] = options.agentId;
  if (options.contextWindow) env[AGENT_ENV.contextWindow] = String(options.contextWindow);
  if (options.modelSettings) env[AGENT_ENV.modelSettings] = JSON.stringify(options.modelSettings);
  if (options.historyIdleMs) env[AGENT_ENV.historyIdleMs] = String(options.historyIdleMs);
  return { command: options.nodePath ?? process.execPath, args, env, readPaths };
}
