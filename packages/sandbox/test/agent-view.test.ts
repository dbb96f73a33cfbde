import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AGENT_SOCKET_DIR, SandboxError, agentViewArgs, sharedLibraries, socketDirs } from "@palisade/sandbox";

const dir = mkdtempSync(join(tmpdir(), "pal-agent-view-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The `--ro-bind src dest` pairs of an argument list. */
const binds = (args: string[]): [string, string][] =>
  args.flatMap((a, i) => (a === "--ro-bind" ? [[args[i + 1] ?? "", args[i + 2] ?? ""] as [string, string]] : []));

describe("socketDirs", () => {
  it("maps sockets of one directory into AGENT_SOCKET_DIR, several directories each to a numbered one", () => {
    const one = socketDirs(["/tmp/e/engine.sock", "/tmp/e/gw.sock"]);
    expect(one.binds).toEqual([{ host: "/tmp/e", inside: AGENT_SOCKET_DIR }]);
    expect(one.inside("/tmp/e/gw.sock")).toBe(`${AGENT_SOCKET_DIR}/gw.sock`);
    const two = socketDirs(["/a/x.sock", "/b/y.sock"]);
    expect(two.binds.map((b) => b.inside)).toEqual([`${AGENT_SOCKET_DIR}/0`, `${AGENT_SOCKET_DIR}/1`]);
    expect(two.inside("/b/y.sock")).toBe(`${AGENT_SOCKET_DIR}/1/y.sock`);
    expect(() => one.inside("/elsewhere/z.sock")).toThrow(SandboxError);
    expect(() => socketDirs(["relative.sock"])).toThrow(/must be absolute/);
  });
});

describe("agentViewArgs", () => {
  it("binds only Node, its libraries, the code and the socket directory, read-only, over an empty root it then makes read-only", async () => {
    const pkg = join(dir, "pkg");
    mkdirSync(join(pkg, "node_modules", "dep"), { recursive: true });
    const linkTarget = join(dir, "real-dep");
    mkdirSync(linkTarget);
    symlinkSync(linkTarget, join(dir, "linked"));
    writeFileSync(join(pkg, "main.js"), "");
    const sockets = join(dir, "run");
    mkdirSync(sockets);
    const libs = await sharedLibraries(process.execPath);
    const args = agentViewArgs({
      node: process.execPath,
      libraries: libs,
      code: [pkg, join(pkg, "node_modules", "dep"), join(dir, "linked")],
      sockets: socketDirs([join(sockets, "engine.sock")]),
    });
    expect(args.slice(0, 3)).toEqual(["--die-with-parent", "--new-session", "--unshare-all"]);
    expect(args).toContain("--disable-userns");
    expect(args.slice(-9)).toEqual(["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/", "--chdir", "/", "--"]);
    const dests = binds(args).map(([, d]) => d);
    // A package inside another bound one (same place on the host) is not bound again; a link is bound from its target.
    expect(dests).not.toContain(join(pkg, "node_modules", "dep"));
    expect(binds(args)).toContainEqual([linkTarget, join(dir, "linked")]);
    expect(binds(args)).toContainEqual([sockets, AGENT_SOCKET_DIR]);
    expect(dests).toContain(process.execPath);
    expect(libs.length).toBeGreaterThan(0);
    for (const l of libs) expect(dests).toContain(l);
    // Nothing but binds, /proc, /dev: no --bind (writable), no tmpfs with host content, no / bind.
    expect(args).not.toContain("--bind");
    expect(dests).not.toContain("/");
    expect(() =>
      agentViewArgs({
        node: process.execPath,
        libraries: [],
        code: [join(dir, "missing")],
        sockets: socketDirs([join(sockets, "e.sock")]),
      }),
    ).toThrow(/does not exist/);
  });
});
