import { describe, expect, it } from "vitest";
import { bwrapArgs, planMounts, SandboxError } from "@palisade/sandbox";
import type { HostFacts, PathFact } from "@palisade/sandbox";

/** A made-up host: the listed paths exist (dirs end with "/"), symlinks map to their target. */
function facts(paths: string[], links: Record<string, string> = {}, home = "/home/alice"): HostFacts {
  const dirs = new Set(paths.filter((p) => p.endsWith("/")).map((p) => (p === "/" ? p : p.slice(0, -1))));
  const files = new Set(paths.filter((p) => !p.endsWith("/")));
  return {
    home,
    homes: () => [...dirs].filter((d) => /^\/home\/[^/]+$/.test(d)),
    inspect(p: string): PathFact {
      const real = links[p] ?? p;
      if (dirs.has(real)) return { kind: "dir", real };
      if (files.has(real)) return { kind: "file", real };
      return { kind: "missing", real };
    },
  };
}

const host = facts(["/home/alice/", "/home/bob/", "/home/alice/.ssh/", "/home/alice/.npmrc", "/home/alice/proj/", "/home/alice/proj/.palisade/", "/etc/shadow", "/root/", "/data/keys/"], {
  "/home/alice/.aws": "/data/keys",
});

describe("planMounts", () => {
  it("hides a protected directory inside a workspace that lives under /tmp", () => {
    const tmpHost = facts(["/tmp/", "/tmp/ws/", "/tmp/ws/.palisade/", "/tmp/elsewhere/", "/home/alice/"]);
    const mounts = planMounts({ filesystem: "workspace", workspace: "/tmp/ws", network: "none", protect: ["/tmp/ws/.palisade", "/tmp/elsewhere"] }, tmpHost);
    const wsAt = mounts.findIndex((m) => m.op === "bind" && m.dest === "/tmp/ws");
    const hideAt = mounts.findIndex((m) => m.op === "tmpfs" && m.dest === "/tmp/ws/.palisade");
    expect(wsAt).toBeGreaterThan(0);
    expect(hideAt).toBeGreaterThan(wsAt);
    expect(mounts.some((m) => m.dest === "/tmp/elsewhere")).toBe(false);
  });

  it("binds code that lives under /tmp back read-only (its top directory), and still hides protected paths below it", () => {
    const tmpHost = facts(["/tmp/", "/tmp/build/", "/tmp/build/node/bin/node", "/tmp/build/app/main.js", "/tmp/build/.palisade-data/", "/tmp/other/", "/home/alice/"]);
    const mounts = planMounts(
      { filesystem: "temp", network: "none", code: ["/tmp/build/node/bin/node", "/tmp/build/app/main.js", "/usr/bin/env"], protect: ["/tmp/build/.palisade-data", "/tmp/other"] },
      tmpHost,
    );
    const tmpfsAt = mounts.findIndex((m) => m.op === "tmpfs" && m.dest === "/tmp");
    const bindAt = mounts.findIndex((m) => m.op === "ro-bind" && m.dest === "/tmp/build");
    const hideAt = mounts.findIndex((m) => m.op === "tmpfs" && m.dest === "/tmp/build/.palisade-data");
    expect(bindAt).toBeGreaterThan(tmpfsAt);
    expect(hideAt).toBeGreaterThan(bindAt);
    expect(mounts.filter((m) => m.op === "ro-bind" && m.dest.startsWith("/tmp"))).toEqual([{ op: "ro-bind", src: "/tmp/build", dest: "/tmp/build" }]);
    // Not rebound, so the private /tmp already hides it: no mount needed.
    expect(mounts.some((m) => m.dest === "/tmp/other")).toBe(false);
  });

  it("binds the workspace read-write over a read-only system with a private /tmp", () => {
    const mounts = planMounts({ filesystem: "workspace", workspace: "/home/alice/proj", network: "none" }, host);
    expect(mounts.slice(0, 2)).toEqual([
      { op: "ro-bind", src: "/", dest: "/" },
      { op: "tmpfs", dest: "/tmp", sizeBytes: 256 * 1024 * 1024 },
    ]);
    expect(mounts).toContainEqual({ op: "bind", src: "/home/alice/proj", dest: "/home/alice/proj" });
  });

  it("hides credentials in the home, password hashes, other homes and /root, and skips what does not exist", () => {
    const mounts = planMounts({ filesystem: "temp", network: "none" }, host);
    const hidden = mounts.filter((m) => m.op === "tmpfs" || m.op === "hide-file").map((m) => m.dest);
    expect(hidden).toEqual(expect.arrayContaining(["/home/alice/.ssh", "/home/alice/.npmrc", "/etc/shadow", "/home/bob", "/root", "/data/keys"]));
    expect(hidden).not.toContain("/home/alice");
    expect(hidden).not.toContain("/home/alice/.gnupg"); // missing on this host
    expect(mounts.find((m) => m.dest === "/etc/shadow")?.op).toBe("hide-file");
    expect(mounts.find((m) => m.dest === "/home/alice/.ssh")).toMatchObject({ op: "tmpfs", readOnly: true });
  });

  it("mounts parents first: a protected directory inside the workspace stays hidden, a workspace inside a hidden home stays visible", () => {
    const inside = planMounts({ filesystem: "workspace", workspace: "/home/alice/proj", network: "none", protect: ["/home/alice/proj/.palisade"] }, host);
    const dests = inside.map((m) => m.dest);
    expect(dests.indexOf("/home/alice/proj/.palisade")).toBeGreaterThan(dests.indexOf("/home/alice/proj"));

    const bob = facts(["/home/alice/", "/home/bob/", "/home/bob/shared/"]);
    const outside = planMounts({ filesystem: "workspace", workspace: "/home/bob/shared", network: "none" }, bob).map((m) => m.dest);
    expect(outside.indexOf("/home/bob")).toBeGreaterThan(-1);
    expect(outside.indexOf("/home/bob/shared")).toBeGreaterThan(outside.indexOf("/home/bob"));
  });

  it("adds config hides, read-only and writable paths", () => {
    const h = facts(["/home/alice/", "/home/alice/proj/", "/home/alice/proj/.git/", "/opt/cache/", "/srv/secret.txt"]);
    const mounts = planMounts(
      { filesystem: "workspace", workspace: "/home/alice/proj", network: "none", hide: ["/srv/secret.txt"], readOnly: ["/home/alice/proj/.git"], writable: ["/opt/cache"] },
      h,
    );
    expect(mounts).toContainEqual({ op: "hide-file", dest: "/srv/secret.txt" });
    expect(mounts).toContainEqual({ op: "ro-bind", src: "/home/alice/proj/.git", dest: "/home/alice/proj/.git" });
    expect(mounts).toContainEqual({ op: "bind", src: "/opt/cache", dest: "/opt/cache" });
  });

  it("refuses a missing workspace, a workspace of /, and relative paths, naming the field", () => {
    expect(() => planMounts({ filesystem: "workspace", network: "none" }, host)).toThrow(SandboxError);
    expect(() => planMounts({ filesystem: "workspace", workspace: "/nope", network: "none" }, host)).toThrow(/not an existing directory/);
    expect(() => planMounts({ filesystem: "workspace", workspace: "/", network: "none" }, facts(["/"]))).toThrow(/cannot be \//);
    expect(() => planMounts({ filesystem: "temp", network: "none", hide: ["secrets"] }, host)).toThrow(/sandbox.hide entry "secrets" must be an absolute path/);
  });
});

describe("bwrapArgs", () => {
  it("unshares every namespace, drops capabilities, dies with its parent and remounts hidden directories read-only last", () => {
    const mounts = planMounts({ filesystem: "workspace", workspace: "/home/alice/proj", network: "none" }, host);
    const args = bwrapArgs({ mounts, cwd: "/home/alice/proj", emptyFile: "/run/empty" });
    expect(args.slice(0, 9)).toEqual(["--die-with-parent", "--new-session", "--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--hostname", "palisade-sandbox"]);
    expect(args).not.toContain("--share-net");
    expect(args.join(" ")).toContain("--ro-bind / / --dev /dev --proc /proc");
    expect(args.join(" ")).toContain("--ro-bind /run/empty /etc/shadow");
    const firstRemount = args.indexOf("--remount-ro");
    const lastMount = Math.max(...args.map((a, i) => (a === "--bind" || a === "--tmpfs" || a === "--ro-bind" ? i : -1)));
    expect(firstRemount).toBeGreaterThan(lastMount);
    expect(args.slice(-3)).toEqual(["--chdir", "/home/alice/proj", "--"]);
  });
});
