import { describe, expect, it } from "vitest";
import { bwrapArgs, ETC_ENTRIES, planMounts, SandboxError, SYSTEM_DIRS } from "@palisade/sandbox";
import type { HostFacts, Mount, PathFact } from "@palisade/sandbox";

/** A made-up host: the listed paths exist (dirs end with "/"); `links` are symbolic links (path → target). */
function facts(paths: string[], links: Record<string, string> = {}, home = "/home/alice"): HostFacts {
  const dirs = new Set(paths.filter((p) => p.endsWith("/")).map((p) => (p === "/" ? p : p.slice(0, -1))));
  const files = new Set(paths.filter((p) => !p.endsWith("/")));
  return {
    home,
    homes: () => [...dirs].filter((d) => /^\/home\/[^/]+$/.test(d)),
    inspect(p: string): PathFact {
      const link = links[p];
      const real = link === undefined ? p : link.startsWith("/") ? link : `/${link}`;
      const kind = dirs.has(real) ? "dir" : files.has(real) ? "file" : "missing";
      return { kind, real, ...(link === undefined ? {} : { link }) };
    },
  };
}

// A merged-/usr Debian: /bin, /sbin and /lib* are links; the host has secrets and sockets everywhere else.
const system = [
  "/usr/",
  "/usr/bin/",
  "/usr/lib/",
  "/usr/lib64/",
  "/etc/ld.so.cache",
  "/etc/ssl/certs/",
  "/etc/alternatives/",
  "/etc/shadow",
  "/etc/passwd",
  "/etc/ssh/",
];
const links = {
  "/bin": "usr/bin",
  "/sbin": "usr/sbin",
  "/lib": "usr/lib",
  "/lib64": "usr/lib64",
  "/etc/localtime": "/usr/share/zoneinfo/Etc/UTC",
};
const host = facts(
  [
    ...system,
    "/usr/share/zoneinfo/Etc/UTC",
    "/usr/sbin/",
    "/home/alice/",
    "/home/bob/",
    "/home/alice/.ssh/",
    "/home/alice/.npmrc",
    "/home/alice/proj/",
    "/home/alice/proj/.palisade/",
    "/root/",
    "/run/postgresql/",
    "/var/lib/",
    "/opt/tool/",
    "/data/keys/",
  ],
  links,
);

const dests = (mounts: Mount[]): string[] => mounts.map((m) => m.dest);
const MiB = 1024 * 1024;

describe("planMounts", () => {
  it("starts from nothing: the system read-only (links kept as links), selected /etc entries, fresh /dev, /proc, /tmp, /run and home; nothing else of the host", () => {
    const mounts = planMounts({ filesystem: "none", network: "none" }, host);
    expect(mounts).toEqual(
      expect.arrayContaining<Mount>([
        { op: "ro-bind", src: "/usr", dest: "/usr" },
        { op: "symlink", target: "usr/bin", dest: "/bin" },
        { op: "symlink", target: "usr/lib64", dest: "/lib64" },
        { op: "ro-bind", src: "/etc/ld.so.cache", dest: "/etc/ld.so.cache" },
        { op: "ro-bind", src: "/etc/ssl/certs", dest: "/etc/ssl/certs" },
        { op: "symlink", target: "/usr/share/zoneinfo/Etc/UTC", dest: "/etc/localtime" },
        { op: "dev", dest: "/dev" },
        { op: "proc", dest: "/proc" },
        { op: "tmpfs", dest: "/tmp", sizeBytes: 256 * MiB },
        { op: "tmpfs", dest: "/run", sizeBytes: 4 * MiB },
        { op: "symlink", target: "../run", dest: "/var/run" },
        { op: "tmpfs", dest: "/home/alice", sizeBytes: 256 * MiB },
      ]),
    );
    // Exactly that: no /etc/shadow, /etc/ssh, /etc/passwd of the host, /run/postgresql, /var/lib, /opt, /root, other homes.
    const allowed = new Set([
      ...SYSTEM_DIRS,
      ...ETC_ENTRIES.map((e) => e.path),
      "/dev",
      "/proc",
      "/tmp",
      "/run",
      "/var/run",
      "/home/alice",
    ]);
    expect(dests(mounts).filter((d) => !allowed.has(d))).toEqual([]);
    expect(mounts.every((m) => m.op !== "bind")).toBe(true);
  });

  it("binds the workspace read-write inside the private home, after it", () => {
    const mounts = planMounts({ filesystem: "workspace", workspace: "/home/alice/proj", network: "none" }, host);
    const homeAt = mounts.findIndex((m) => m.op === "tmpfs" && m.dest === "/home/alice");
    const wsAt = mounts.findIndex((m) => m.op === "bind" && m.dest === "/home/alice/proj");
    expect(homeAt).toBeGreaterThan(-1);
    expect(wsAt).toBeGreaterThan(homeAt);
    expect(mounts[wsAt]).toEqual({ op: "bind", src: "/home/alice/proj", dest: "/home/alice/proj" });
  });

  it("hides protected paths and credentials only where a bind shows them", () => {
    const mounts = planMounts(
      {
        filesystem: "workspace",
        workspace: "/home/alice",
        network: "none",
        protect: ["/home/alice/proj/.palisade", "/data/keys"],
      },
      host,
    );
    // The workspace is the home itself: its credentials stay hidden inside it, after it.
    const wsAt = dests(mounts).lastIndexOf("/home/alice");
    expect(mounts[wsAt]?.op).toBe("bind");
    expect(dests(mounts).indexOf("/home/alice/.ssh")).toBeGreaterThan(wsAt);
    expect(mounts.find((m) => m.dest === "/home/alice/.ssh")).toMatchObject({ op: "tmpfs", readOnly: true });
    expect(mounts).toContainEqual({ op: "hide-file", dest: "/home/alice/.npmrc" });
    expect(mounts.find((m) => m.dest === "/home/alice/proj/.palisade")).toMatchObject({ op: "tmpfs", readOnly: true });
    // Not under any bind: not in the view anyway, so no mount for it.
    expect(dests(mounts)).not.toContain("/data/keys");
    expect(dests(mounts)).not.toContain("/home/bob");
  });

  it("binds config read-only and writable paths and hides config paths inside them", () => {
    const h = facts(
      [
        ...system,
        "/home/alice/",
        "/home/alice/proj/",
        "/home/alice/proj/.git/",
        "/opt/cache/",
        "/opt/cache/token",
        "/srv/secret.txt",
      ],
      links,
    );
    const mounts = planMounts(
      {
        filesystem: "workspace",
        workspace: "/home/alice/proj",
        network: "none",
        hide: ["/srv/secret.txt", "/opt/cache/token"],
        readOnly: ["/home/alice/proj/.git"],
        writable: ["/opt/cache"],
      },
      h,
    );
    expect(mounts).toContainEqual({ op: "ro-bind", src: "/home/alice/proj/.git", dest: "/home/alice/proj/.git" });
    expect(mounts).toContainEqual({ op: "bind", src: "/opt/cache", dest: "/opt/cache" });
    expect(mounts).toContainEqual({ op: "hide-file", dest: "/opt/cache/token" });
    expect(dests(mounts)).not.toContain("/srv/secret.txt");
    expect(dests(mounts).indexOf("/home/alice/proj/.git")).toBeGreaterThan(dests(mounts).indexOf("/home/alice/proj"));
  });

  it("binds code read-only (skipping what the system view has) and recreates links outside its binds", () => {
    const h = facts([...system, "/home/alice/", "/opt/app/", "/opt/app/node_modules/dep/", "/opt/lib/"], links);
    const mounts = planMounts(
      {
        filesystem: "none",
        network: "none",
        code: ["/opt/app", "/usr/bin/python3", "/opt/lib"],
        links: [
          { dest: "/opt/app/node_modules/linked", target: "../../lib" },
          { dest: "/srv/bin/tool", target: "/opt/app/main.js" },
        ],
      },
      h,
    );
    expect(mounts).toContainEqual({ op: "ro-bind", src: "/opt/app", dest: "/opt/app" });
    expect(mounts).toContainEqual({ op: "ro-bind", src: "/opt/lib", dest: "/opt/lib" });
    expect(mounts).toContainEqual({ op: "symlink", target: "/opt/app/main.js", dest: "/srv/bin/tool" });
    expect(dests(mounts)).not.toContain("/usr/bin/python3");
    // Inside a bind the host's own link is already there.
    expect(dests(mounts)).not.toContain("/opt/app/node_modules/linked");
  });

  it("does not bind code again inside the workspace (a program there stays read-write)", () => {
    const h = facts([...system, "/home/alice/", "/home/alice/proj/", "/home/alice/proj/tools/"], links);
    const mounts = planMounts(
      {
        filesystem: "workspace",
        workspace: "/home/alice/proj",
        network: "none",
        code: ["/home/alice/proj", "/home/alice/proj/tools"],
      },
      h,
    );
    expect(mounts.filter((m) => m.dest.startsWith("/home/alice/proj"))).toEqual([
      { op: "bind", src: "/home/alice/proj", dest: "/home/alice/proj" },
    ]);
  });

  it("binds socket directories last, even inside a hidden directory, and made files over the system's", () => {
    const h = facts(
      [
        ...system,
        "/home/alice/",
        "/home/alice/proj/",
        "/home/alice/proj/.run/",
        "/home/alice/proj/.run/sock/",
        "/tmp/x/passwd",
      ],
      links,
    );
    const mounts = planMounts(
      {
        filesystem: "workspace",
        workspace: "/home/alice/proj",
        network: "none",
        protect: ["/home/alice/proj/.run"],
        sockets: ["/home/alice/proj/.run/sock"],
        files: [{ src: "/tmp/x/passwd", dest: "/etc/passwd" }],
      },
      h,
    );
    expect(dests(mounts).indexOf("/home/alice/proj/.run/sock")).toBeGreaterThan(
      dests(mounts).indexOf("/home/alice/proj/.run"),
    );
    expect(mounts.at(-1)).toEqual({
      op: "bind",
      src: "/home/alice/proj/.run/sock",
      dest: "/home/alice/proj/.run/sock",
    });
    expect(mounts).toContainEqual({ op: "ro-bind", src: "/tmp/x/passwd", dest: "/etc/passwd" });
  });

  it("refuses a missing workspace, a workspace of /, binding /, missing sockets and relative paths, naming the field", () => {
    expect(() => planMounts({ filesystem: "workspace", network: "none" }, host)).toThrow(SandboxError);
    expect(() => planMounts({ filesystem: "workspace", workspace: "/nope", network: "none" }, host)).toThrow(
      /not an existing directory/,
    );
    expect(() => planMounts({ filesystem: "workspace", workspace: "/", network: "none" }, facts(["/"]))).toThrow(
      /cannot be \//,
    );
    expect(() => planMounts({ filesystem: "temp", network: "none", writable: ["/"] }, facts(["/"]))).toThrow(
      /\/ cannot be bound/,
    );
    expect(() => planMounts({ filesystem: "temp", network: "none", sockets: ["/run/nope"] }, host)).toThrow(
      /socket path "\/run\/nope" does not exist/,
    );
    expect(() => planMounts({ filesystem: "temp", network: "none", hide: ["secrets"] }, host)).toThrow(
      /sandbox.hide entry "secrets" must be an absolute path/,
    );
    expect(() => planMounts({ filesystem: "temp", network: "none", readOnly: ["opt"] }, host)).toThrow(
      /sandbox.read_only entry "opt" must be an absolute path/,
    );
  });
});

describe("bwrapArgs", () => {
  it("unshares every namespace, drops capabilities, dies with its parent and makes the root and hidden directories read-only last", () => {
    const mounts = planMounts({ filesystem: "workspace", workspace: "/home/alice", network: "none" }, host);
    const args = bwrapArgs({ mounts, cwd: "/home/alice", emptyFile: "/run/empty" });
    expect(args.slice(0, 9)).toEqual([
      "--die-with-parent",
      "--new-session",
      "--unshare-all",
      "--unshare-user",
      "--disable-userns",
      "--cap-drop",
      "ALL",
      "--hostname",
      "palisade-sandbox",
    ]);
    expect(args).not.toContain("--share-net");
    const joined = args.join(" ");
    expect(joined).toContain("--ro-bind /usr /usr");
    expect(joined).toContain("--symlink usr/bin /bin");
    expect(joined).toContain("--dev /dev");
    expect(joined).toContain("--proc /proc");
    expect(joined).toContain("--ro-bind /run/empty /home/alice/.npmrc");
    expect(joined).not.toMatch(/--ro-bind \/ \//);
    const firstRemount = args.indexOf("--remount-ro");
    expect(args[firstRemount + 1]).toBe("/");
    const lastMount = Math.max(
      ...args.map((a, i) => (["--bind", "--tmpfs", "--ro-bind", "--symlink"].includes(a) ? i : -1)),
    );
    expect(firstRemount).toBeGreaterThan(lastMount);
    expect(args.slice(-3)).toEqual(["--chdir", "/home/alice", "--"]);
  });
});
