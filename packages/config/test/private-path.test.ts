import { chmodSync, chownSync, lchownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assertPrivatePath, isPrivateGroup, PrivatePathError, privatePathProblem } from "../src/private-path.js";

const isRoot = process.getuid?.() === 0;
// Group-writable paths need a group another account may be in (as root: a gid no group file
// lists); without root, the user's own group must not be private for those checks.
const ownGroupPrivate = !isRoot && isPrivateGroup(process.getgid?.() ?? -1, process.getuid?.() ?? -1);
/** A uid no account uses here: another user, for chown. */
const OTHER = 54321;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "private-path-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("private paths", () => {
  it("accepts a directory of the user's own under the sticky /tmp", () => {
    expect(privatePathProblem(dir, { what: "the data directory", own: true, privateMode: true })).toBeUndefined();
  });

  it("refuses the sticky, world-writable /tmp itself", () => {
    const problem = privatePathProblem("/tmp", { what: "the data directory" });
    expect(problem).toMatch(/the data directory \/tmp is writable by every user \(mode 1777\).*chmod go-w \/tmp/);
  });

  it.skipIf(ownGroupPrivate)("refuses a path under a group-writable parent, naming the parent and the fix", () => {
    const parent = join(dir, "shared");
    mkdirSync(join(parent, "palisade"), { recursive: true, mode: 0o700 });
    if (isRoot) chownSync(parent, 0, OTHER);
    chmodSync(parent, 0o770);
    const problem = privatePathProblem(join(parent, "palisade"), { what: "the data directory" });
    expect(problem).toContain(`${parent} is writable by its group (mode 770) without the sticky bit`);
    expect(problem).toContain(`chmod go-w ${parent}`);
    expect(() => assertPrivatePath(join(parent, "palisade"), { what: "the data directory" })).toThrow(PrivatePathError);
  });

  it("refuses a missing path under a world-writable parent, accepts it under a private one", () => {
    const open = join(dir, "open");
    mkdirSync(open, { mode: 0o700 });
    chmodSync(open, 0o777);
    expect(privatePathProblem(join(open, "palisade"), { what: "the data directory", allowMissing: true })).toMatch(
      /writable by every user \(mode 777\) without the sticky bit/,
    );
    expect(privatePathProblem(join(dir, "a", "b"), { what: "the data directory", allowMissing: true })).toBeUndefined();
    expect(privatePathProblem(join(dir, "a"), { what: "the config file" })).toMatch(/does not exist/);
  });

  it("refuses a data directory open to others when it must be 0700, and a group-writable file", () => {
    const data = join(dir, "data");
    mkdirSync(data, { mode: 0o700 });
    chmodSync(data, 0o755);
    expect(privatePathProblem(data, { what: "the data directory", privateMode: true })).toContain(
      `is open to other users (mode 755); fix it with: chmod 700 ${data}`,
    );
    const file = join(dir, "config.yaml");
    writeFileSync(file, "model: {}\n");
    if (isRoot) chownSync(file, 0, OTHER); // a group another account may be in
    chmodSync(file, 0o664);
    if (!ownGroupPrivate)
      expect(privatePathProblem(file, { what: "the config file" })).toContain(`fix it with: chmod go-w ${file}`);
    chmodSync(file, 0o644);
    expect(privatePathProblem(file, { what: "the config file" })).toBeUndefined();
  });

  it("a group is private when the user is its only account, by /etc/passwd and /etc/group", () => {
    const passwd = "root:x:0:0::/root:/bin/sh\nme:x:1000:1000::/home/me:/bin/sh\nyou:x:1001:1001::/home/you:/bin/sh\n";
    const files = (group: string) => ({ passwd, group });
    expect(isPrivateGroup(1000, 1000, files("me:x:1000:\n"))).toBe(true);
    expect(isPrivateGroup(1000, 1000, files("me:x:1000:me\n"))).toBe(true);
    expect(isPrivateGroup(1000, 1000, files("me:x:1000:me,you\n"))).toBe(false);
    expect(isPrivateGroup(1001, 1000, files("you:x:1001:\n"))).toBe(false);
    expect(isPrivateGroup(1000, 1000, files(""))).toBe(false);
    // another account with it as primary group
    const shared = passwd + "them:x:1002:1000::/home/them:/bin/sh\n";
    expect(isPrivateGroup(1000, 1000, { passwd: shared, group: "me:x:1000:\n" })).toBe(false);
    // a group the user is a listed member of, alone
    expect(isPrivateGroup(2000, 1000, files("solo:x:2000:me\n"))).toBe(true);
  });

  describe.skipIf(!isRoot)("other users' paths (chown, needs root)", () => {
    it("accepts a group-writable directory of the user's own private group (umask 002)", () => {
      const parent = join(dir, "umask002");
      mkdirSync(join(parent, "palisade"), { recursive: true, mode: 0o700 });
      chmodSync(parent, 0o775); // group root: root is its only account here
      expect(isPrivateGroup(0, 0)).toBe(true);
      expect(privatePathProblem(join(parent, "palisade"), { what: "the data directory" })).toBeUndefined();
      chmodSync(parent, 0o777);
      expect(privatePathProblem(join(parent, "palisade"), { what: "the data directory" })).toContain(
        "writable by every user",
      );
    });

    it("refuses an entry of another user inside a sticky directory, accepts the user's own", () => {
      const sticky = join(dir, "sticky");
      mkdirSync(sticky, { mode: 0o700 });
      chmodSync(sticky, 0o1777);
      const mine = join(sticky, "mine");
      const theirs = join(sticky, "theirs");
      mkdirSync(mine, { mode: 0o700 });
      mkdirSync(theirs, { mode: 0o700 });
      chownSync(theirs, OTHER, OTHER);
      expect(privatePathProblem(mine, { what: "the data directory", own: true })).toBeUndefined();
      expect(privatePathProblem(theirs, { what: "the data directory", own: true })).toContain(
        `the data directory ${theirs} is owned by uid ${OTHER}, not by you`,
      );
      // a directory the user made inside another user's directory is still theirs to swap
      const below = join(theirs, "palisade");
      mkdirSync(below, { mode: 0o700 });
      expect(privatePathProblem(below, { what: "the data directory" })).toContain(`${theirs} is owned by uid ${OTHER}`);
    });

    it("follows a symbolic link and refuses a target owned by another user", () => {
      const target = join(dir, "their-config.yaml");
      writeFileSync(target, "model: {}\n", { mode: 0o600 });
      chownSync(target, OTHER, OTHER);
      const link = join(dir, "config.yaml");
      symlinkSync(target, link);
      expect(privatePathProblem(link, { what: "the config file" })).toContain(`${target} is owned by uid ${OTHER}`);
      chownSync(target, 0, 0);
      expect(privatePathProblem(link, { what: "the config file" })).toBeUndefined();
    });

    it("refuses a link planted by another user in a sticky directory, even to the user's own file", () => {
      const sticky = join(dir, "sticky");
      mkdirSync(sticky, { mode: 0o700 });
      chmodSync(sticky, 0o1777);
      const mine = join(dir, "config.yaml");
      writeFileSync(mine, "model: {}\n", { mode: 0o600 });
      const link = join(sticky, "config.yaml");
      symlinkSync(mine, link);
      lchownSync(link, OTHER, OTHER);
      expect(privatePathProblem(link, { what: "the config file" })).toContain(
        `the config file ${link} (a symbolic link) is owned by uid ${OTHER}`,
      );
    });

    it("checks the directories above a link's target", () => {
      const theirs = join(dir, "theirs");
      mkdirSync(join(theirs, "palisade"), { recursive: true, mode: 0o700 });
      chownSync(theirs, OTHER, OTHER);
      const link = join(dir, "data");
      symlinkSync(join(theirs, "palisade"), link);
      expect(privatePathProblem(link, { what: "the data directory" })).toContain(`${theirs} is owned by uid ${OTHER}`);
    });
  });
});
