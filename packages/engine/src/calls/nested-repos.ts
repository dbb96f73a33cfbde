// Git repositories in the workspace whose config or hooks a tool call changed. A program the
// Shield cannot read (a script the model wrote, then ran) can create a repository, or edit one,
// so that the user's next git command there — or the editor's, which runs `git status` on the
// repositories it finds — runs a program outside every sandbox (core.fsmonitor, core.hooksPath,
// a hook). After each capability call the Engine looks at the repositories under the workspace:
// config entries the call added that run programs are removed again (earlier values kept), and
// hooks the call wrote are renamed so git no longer runs them. The model and the log are told.
import { execFile } from "node:child_process";
import { readdir, rename, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { repoConfigEntryRunsProgram } from "@palisade/shield";

const run = promisify(execFile);
/** Directories never searched for repositories: dependencies and build output. */
const SKIP = new Set([
  "node_modules",
  ".venv",
  "venv",
  "__pycache__",
  "target",
  "dist",
  "build",
  ".next",
  ".cache",
  ".tox",
]);
const MAX_DEPTH = 6;
const MAX_DIRS = 5000;
/**
 * Built-in capabilities that run no program of the model's: what they write the Shield sees
 * (`files`: `.git/**` and hooks ask) or is not in the workspace at all. Every other capability
 * (shell, MCP servers, third-party Selu servers) is checked after each call.
 */
const RUNS_NO_PROGRAMS = new Set(["files", "http", "mail", "documents"]);

/** Whether a call of this capability's tools is followed by a check of the workspace's repositories. */
export function guardsRepos(capabilityId: string): boolean {
  return !RUNS_NO_PROGRAMS.has(capabilityId);
}

/** Suffix of a hook the Engine took out of use. */
export const REFUSED_SUFFIX = ".palisade-refused";
/** git reading nothing but the file it is given: no system or user config, no repository of its own. */
const GIT_ENV = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  HOME: "/nonexistent",
  LC_ALL: "C",
};

interface RepoState {
  configMtimeMs: number;
  /** `key\0value` of every entry accepted so far. */
  entries: Set<string>;
}

/** The `.git` directories under `workspace` (the workspace's own included), searched with bounds. */
async function gitDirs(workspace: string): Promise<string[]> {
  const found: string[] = [];
  let visited = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH || visited >= MAX_DIRS) return;
    visited++;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      if (e.name === ".git") found.push(join(dir, e.name));
      else if (!SKIP.has(e.name)) await walk(join(dir, e.name), depth + 1);
    }
  };
  await walk(workspace, 0);
  return found;
}

function git(args: string[]): Promise<{ stdout: string }> {
  return run("git", args, { cwd: "/", env: GIT_ENV, maxBuffer: 4 * 1024 * 1024, timeout: 10_000 });
}

async function readEntries(file: string): Promise<string[]> {
  const { stdout } = await git(["config", "--file", file, "--no-includes", "--list", "-z"]);
  // -z: each entry is `key\nvalue` (or `key` alone) ended by NUL.
  return stdout
    .split("\0")
    .filter(Boolean)
    .map((e) => (e.includes("\n") ? e.replace("\n", "\0") : `${e}\0`));
}

const keyOf = (entry: string): string => entry.slice(0, entry.indexOf("\0"));
const valueOf = (entry: string): string => entry.slice(entry.indexOf("\0") + 1);

/** One Engine's view of the repositories in each session's workspace. */
export class RepoGuard {
  private readonly sessions = new Map<string, Map<string, RepoState>>();
  private queue: Promise<unknown> = Promise.resolve();
  private gitMissing = false;

  constructor(private readonly log: (line: string) => void) {}

  /** Before a session's first call: what its repositories hold now is what the user made. */
  prime(sessionId: string, workspace: string): Promise<void> {
    if (this.sessions.has(sessionId)) return Promise.resolve();
    return this.serial(async () => {
      if (this.sessions.has(sessionId)) return;
      const repos = new Map<string, RepoState>();
      for (const dir of await gitDirs(workspace)) {
        const st = await stat(join(dir, "config")).catch(() => undefined);
        const entries = st ? await this.entries(join(dir, "config")) : [];
        repos.set(dir, { configMtimeMs: st?.mtimeMs ?? -1, entries: new Set(entries) });
      }
      // Bounded: a long-lived Engine forgets the oldest sessions' views.
      if (this.sessions.size >= 256) this.sessions.delete(this.sessions.keys().next().value as string);
      this.sessions.set(sessionId, repos);
    });
  }

  /** After a call that started at `since`: what it changed is undone; returns what to tell the model. */
  check(sessionId: string, workspace: string, since: number): Promise<string[]> {
    return this.serial(async () => {
      const repos = this.sessions.get(sessionId) ?? new Map<string, RepoState>();
      this.sessions.set(sessionId, repos);
      const notes: string[] = [];
      for (const dir of await gitDirs(workspace)) {
        const where = relative(workspace, dir) || ".git";
        notes.push(...(await this.checkConfig(dir, where, repos)), ...(await this.checkHooks(dir, where, since)));
      }
      for (const n of notes) this.log(`workspace git guard: ${n}`);
      return notes;
    });
  }

  private async checkConfig(dir: string, where: string, repos: Map<string, RepoState>): Promise<string[]> {
    const file = join(dir, "config");
    const st = await stat(file).catch(() => undefined);
    const known = repos.get(dir) ?? { configMtimeMs: -1, entries: new Set<string>() };
    repos.set(dir, known);
    if (!st || st.mtimeMs === known.configMtimeMs) return [];
    const entries = await this.entries(file);
    const added = entries.filter((e) => !known.entries.has(e) && repoConfigEntryRunsProgram(keyOf(e), valueOf(e)));
    const keys = [...new Set(added.map(keyOf))].sort();
    for (const key of keys) {
      await git(["config", "--file", file, "--unset-all", key]);
      for (const e of known.entries)
        if (keyOf(e) === key) await git(["config", "--file", file, "--add", key, valueOf(e)]);
    }
    const kept = keys.length > 0 ? await this.entries(file) : entries;
    repos.set(dir, { configMtimeMs: (await stat(file).catch(() => undefined))?.mtimeMs ?? -1, entries: new Set(kept) });
    return keys.length > 0
      ? [
          `removed ${keys.join(", ")} from ${where}/config: ${keys.length > 1 ? "they" : "it"} would run a program outside the sandbox at the next git command there; a person can set ${keys.length > 1 ? "them" : "it"} again if wanted`,
        ]
      : [];
  }

  private async checkHooks(dir: string, where: string, since: number): Promise<string[]> {
    const hooks = join(dir, "hooks");
    const names = await readdir(hooks).catch(() => [] as string[]);
    const taken: string[] = [];
    for (const name of names) {
      if (name.endsWith(".sample") || name.endsWith(REFUSED_SUFFIX)) continue;
      const st = await stat(join(hooks, name)).catch(() => undefined);
      if (!st?.isFile() || st.mtimeMs < since) continue;
      await rename(join(hooks, name), join(hooks, `${name}${REFUSED_SUFFIX}`));
      taken.push(name);
    }
    return taken.length > 0
      ? [
          `renamed the hooks ${taken.join(", ")} in ${where}/hooks to *${REFUSED_SUFFIX}: git would run them outside the sandbox; a person can rename them back if wanted`,
        ]
      : [];
  }

  private async entries(file: string): Promise<string[]> {
    if (this.gitMissing) return [];
    try {
      return await readEntries(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") {
        // No git on this machine: nothing here would read these files.
        this.gitMissing = true;
        return [];
      }
      this.log(`workspace git guard: cannot read ${file}: ${(err as Error).message}`);
      return [];
    }
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }
}
