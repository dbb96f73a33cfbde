// The Engine's guard over the workspace's git repositories, with real git on a temp dir: what a
// call adds that runs programs is removed (earlier values restored), what git itself writes and
// what the user had stays, hooks the call wrote no longer run.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempDir } from "@palisade/testing";
import type { TempDir } from "@palisade/testing";
import { RepoGuard } from "../src/calls/nested-repos.js";

const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd, encoding: "utf8" });
const config = (repo: string): string[] => git(repo, "config", "--file", ".git/config", "--list").trim().split("\n");

let dir: TempDir | undefined;
afterEach(async () => {
  await dir?.remove();
  dir = undefined;
});

async function workspace(): Promise<string> {
  dir = await makeTempDir("palisade-repos-");
  return dir.path;
}

describe("RepoGuard", () => {
  it("removes program-running entries a call added, restores changed values, keeps the user's and git's own", async () => {
    const ws = await workspace();
    const repo = join(ws, "lib");
    mkdirSync(repo);
    git(repo, "init", "-q");
    git(repo, "config", "core.hooksPath", ".husky");
    git(repo, "config", "core.pager", "less");
    const logs: string[] = [];
    const guard = new RepoGuard((l) => logs.push(l));
    await guard.prime("s1", ws);
    const since = Date.now();
    // What the call did:
    git(repo, "remote", "add", "origin", "https://example.com/x.git");
    git(repo, "config", "core.fsmonitor", "touch FSMONITOR-RAN");
    git(repo, "config", "core.pager", "sh -c evil");
    git(repo, "config", "include.path", "../evil.cfg");
    git(repo, "config", "remote.other.url", "ext::sh -c evil");
    const notes = await guard.check("s1", ws, since);
    const after = config(repo);
    expect(after).toContain("core.hookspath=.husky");
    expect(after).toContain("core.pager=less");
    expect(after).toContain("remote.origin.url=https://example.com/x.git");
    expect(
      after.some(
        (e) => e.startsWith("core.fsmonitor") || e.startsWith("include.path") || e.startsWith("remote.other.url"),
      ),
    ).toBe(false);
    expect(after.filter((e) => e.startsWith("core.pager"))).toEqual(["core.pager=less"]);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      /^removed core\.fsmonitor, core\.pager, include\.path, remote\.other\.url from lib\/\.git\/config/,
    );
    expect(logs).toEqual([`workspace git guard: ${notes[0] ?? ""}`]);
    // Nothing changed since: nothing to say.
    expect(await guard.check("s1", ws, Date.now())).toEqual([]);
  });

  it("a repository created during the call is judged whole; hooks written by the call are renamed, older ones kept", async () => {
    const ws = await workspace();
    const old = join(ws, "old");
    mkdirSync(old);
    git(old, "init", "-q");
    writeFileSync(join(old, ".git/hooks/pre-commit"), "#!/bin/sh\n", { mode: 0o755 });
    utimesSync(join(old, ".git/hooks/pre-commit"), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const guard = new RepoGuard(() => undefined);
    await guard.prime("s1", ws);
    const since = Date.now();
    const fresh = join(ws, "vendor", "new");
    mkdirSync(fresh, { recursive: true });
    git(fresh, "init", "-q");
    git(fresh, "config", "alias.st", "!sh -c evil");
    writeFileSync(join(fresh, ".git/hooks/post-checkout"), "#!/bin/sh\n", { mode: 0o755 });
    const notes = await guard.check("s1", ws, since);
    expect(config(fresh).some((e) => e.startsWith("alias."))).toBe(false);
    expect(config(fresh)).toContain("core.repositoryformatversion=0");
    expect(existsSync(join(fresh, ".git/hooks/post-checkout"))).toBe(false);
    expect(existsSync(join(fresh, ".git/hooks/post-checkout.palisade-refused"))).toBe(true);
    expect(existsSync(join(old, ".git/hooks/pre-commit"))).toBe(true);
    expect(notes.join("\n")).toMatch(/removed alias\.st from vendor\/new\/\.git\/config/);
    expect(notes.join("\n")).toMatch(/renamed the hooks post-checkout in vendor\/new\/\.git\/hooks/);
  });

  it("a session seen for the first time takes what is there as the user's", async () => {
    const ws = await workspace();
    git(ws, "init", "-q");
    git(ws, "config", "core.fsmonitor", "the-users-own-daemon");
    const guard = new RepoGuard(() => undefined);
    await guard.prime("s2", ws);
    expect(await guard.check("s2", ws, Date.now())).toEqual([]);
    expect(config(ws)).toContain("core.fsmonitor=the-users-own-daemon");
  });
});
