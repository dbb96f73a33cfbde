// "What can I see": a probe run inside each tool sandbox — every built-in (files, shell, http,
// documents, mail), an npm MCP server's and a third-party Selu server's, each built the way the
// Engine builds it — lists every mount, every entry bubblewrap made, every unix socket and the
// environment's names. The test compares that with the view docs/security.md documents (its
// "The default view" block, read from the file), so the documentation and the walls cannot drift.
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createNetServer } from "node:net";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CapabilityHost,
  loadManifest,
  planSandbox,
  prepareCapabilitySandbox,
  sandboxedStdio,
  scrubbedEnv,
  stdioSpawn,
} from "@palisade/capabilities";
import type { SandboxSettings } from "@palisade/capabilities";
import { probeSandbox, proxyEnv } from "@palisade/sandbox";

const probe = await probeSandbox();
if (!probe.available && process.env.CI) throw new Error(`CI must run the view probes: ${probe.reason}`);

const root = fileURLToPath(new URL("../..", import.meta.url));
const PROBE = readFileSync(fileURLToPath(new URL("./fixtures/walls/probe.py", import.meta.url)), "utf8");
const require = createRequire(import.meta.url);

interface Seen {
  mounts: Array<{ path: string; ro: boolean }>;
  skeleton: Array<{ path: string; dir?: boolean; link?: string }>;
  sockets: string[];
  home: string[] | null;
  env: string[];
}

/** The documented view: docs/security.md's "The default view" block, one `path access why` per line. */
function documentedView(): Array<{ path: string; access: string }> {
  const doc = readFileSync(join(root, "docs", "security.md"), "utf8");
  const block = /```text\n# The default view[\s\S]*?\n```/.exec(doc)?.[0];
  if (!block) throw new Error('docs/security.md has no "The default view" block');
  return block
    .split("\n")
    .slice(1, -1)
    .filter((l) => l.trim() !== "" && !l.startsWith("#"))
    .map((l) => {
      const [path = "", access = ""] = l.trim().split(/\s+/);
      return { path, access };
    });
}

/** The documented environment of a sandboxed process: names only. */
function documentedEnv(kind: "selu" | "mcp", extra: string[]): Set<string> {
  const fromEngine =
    kind === "mcp"
      ? ["PATH", "LANG", "LC_ALL", "TZ", "USER", "LOGNAME", "TERM", "SHELL"]
      : ["PATH", "LANG", "LC_ALL", "TZ"];
  // PWD: bubblewrap's --chdir sets it.
  return new Set([...fromEngine.filter((k) => process.env[k] !== undefined), "HOME", "TMPDIR", "PWD", ...extra]);
}

interface Expect {
  workspace?: string;
  /** The Engine's socket directories of this launch. */
  sockets: string[];
  /** The package the program is in: among the code mounts. */
  program: string;
  env: Set<string>;
}

const ENGINE_PACKAGES = [
  "packages/engine",
  "packages/store",
  "packages/agent",
  "packages/shield",
  "apps/cli",
  "packages/testing",
].map((p) => join(root, p));
const within = (p: string, dir: string): boolean => p === dir || p.startsWith(`${dir}/`);

/** Compares what the probe saw with the documented view. */
function checkView(seen: Seen, exp: Expect): void {
  const home = process.env.HOME ?? "";
  const documented = documentedView();
  const onHost = (p: string): "link" | "present" | "missing" => {
    try {
      return lstatSync(p).isSymbolicLink() ? "link" : "present";
    } catch {
      return "missing";
    }
  };
  const expectedMounts = new Set<string>();
  const expectedLinks = new Set<string>(["/var/run"]);
  for (const { path, access } of documented) {
    if (path.startsWith("$")) continue;
    if (access === "made" || access === "private") expectedMounts.add(path);
    else if (access === "read-only") {
      const h = onHost(path);
      if (h === "link") expectedLinks.add(path);
      else if (h === "present") expectedMounts.add(path);
    }
  }
  expectedMounts.add(home);
  if (exp.workspace) expectedMounts.add(exp.workspace);
  for (const s of exp.sockets) expectedMounts.add(s);

  const mounts = seen.mounts.filter(
    (m) => m.path !== "/" && !m.path.startsWith("/dev/") && !m.path.startsWith("/proc/"),
  );
  const code = mounts.filter((m) => !expectedMounts.has(m.path));
  // Every other mount is the program's code: read-only, a package directory (or the Node binary's), never the Engine's.
  for (const m of code) {
    expect(m.ro, `${m.path} is code, so read-only`).toBe(true);
    expect(
      existsSync(join(m.path, "package.json")) || within(process.execPath, m.path),
      `${m.path} is neither a package nor Node`,
    ).toBe(true);
    for (const e of ENGINE_PACKAGES)
      expect(within(m.path, e) || within(e, m.path), `${m.path}: the Engine's code is not in a tool's view`).toBe(
        false,
      );
  }
  expect(code.map((m) => m.path)).toContain(exp.program);
  // Exactly the documented mounts besides the code, with the documented access.
  expect(new Set(mounts.filter((m) => expectedMounts.has(m.path)).map((m) => m.path))).toEqual(expectedMounts);
  const rw = new Set([
    "/tmp",
    "/run",
    home,
    ...(exp.workspace ? [exp.workspace] : []),
    ...exp.sockets,
    "/dev",
    "/proc",
  ]);
  for (const m of mounts.filter((x) => expectedMounts.has(x.path)))
    expect(m.ro, `${m.path} access`).toBe(!rw.has(m.path));
  // The root holds only the directories bubblewrap made for those mounts, and links.
  const anchors = [
    ...mounts.map((m) => m.path),
    ...seen.skeleton.filter((s) => s.link !== undefined).map((s) => s.path),
  ];
  for (const s of seen.skeleton) {
    if (s.link !== undefined) {
      const isCodeLink =
        /\/node_modules\//.test(s.path) || code.some((m) => within(join(dirname(s.path), s.link ?? ""), m.path));
      expect(expectedLinks.has(s.path) || isCodeLink, `link ${s.path} -> ${s.link} is not in the documented view`).toBe(
        true,
      );
    } else {
      expect(s.dir, `${s.path}: nothing but directories and links on the root`).toBe(true);
      expect(
        anchors.some((a) => a.startsWith(`${s.path}/`)),
        `${s.path} holds no mount`,
      ).toBe(true);
    }
  }
  for (const l of expectedLinks)
    expect(
      seen.skeleton.some((s) => s.path === l && s.link !== undefined),
      `${l} is a link as on the host`,
    ).toBe(true);
  // The only sockets are the launch's own.
  for (const s of seen.sockets)
    expect(
      exp.sockets.some((d) => within(s, d)),
      `socket ${s} is not the launch's`,
    ).toBe(true);
  expect(seen.home).toEqual([]);
  expect(new Set(seen.env)).toEqual(exp.env);
}

function runProbe(argv: string[], env: Record<string, string>): Seen {
  const [cmd = "", ...args] = argv;
  return JSON.parse(execFileSync(cmd, args, { env, timeout: 60_000 }).toString()) as Seen;
}

const PROBE_ARGV = ["/usr/bin/python3", "-c", PROBE];
let dir = "";
let workspace = "";
let settings: SandboxSettings;

beforeAll(() => {
  dir = mkdtempSync("/var/tmp/pal-view-");
  workspace = join(dir, "ws");
  mkdirSync(workspace);
  settings = {
    probe,
    required: true,
    hide: [],
    readOnly: [],
    writable: [],
    protect: [join(dir, "data")],
    allowAddresses: [],
    runBase: mkdtempSync("/tmp/pal-view-run-"),
  };
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  if (settings) rmSync(settings.runBase, { recursive: true, force: true });
});

/** Prepares the sandbox of a `command` capability as the Engine does, and runs the probe in place of its program. */
async function probeCapability(
  id: string,
  manifestPath: string,
  command: string[],
  channel: "socket" | "port",
  config: Record<string, unknown> = {},
): Promise<{ seen: Seen; sockets: string[] }> {
  const manifest = await loadManifest(manifestPath);
  const capConfig = { id, manifest: manifestPath, command, ...config };
  const plan = planSandbox(
    manifest,
    capConfig,
    settings,
    typeof (config.config as { workspace?: string } | undefined)?.workspace === "string" ? workspace : undefined,
  );
  if (!plan) throw new Error(`no sandbox plan for ${id}`);
  const socketDir = mkdtempSync(join(settings.runBase, `${id}-sock-`));
  const prepared = await prepareCapabilitySandbox(plan, settings, {
    id,
    command,
    ...(channel === "socket" ? { sockets: [socketDir] } : { inboundPort: 50051 }),
  });
  try {
    const argv = [...prepared.argv.slice(0, prepared.argv.length - command.length), ...PROBE_ARGV];
    const env = scrubbedEnv(
      process.env,
      prepared.env,
      channel === "socket"
        ? { kind: "socket", socketPath: join(socketDir, "cap.sock"), secret: "x" }
        : { kind: "port", port: 50051 },
    );
    // The launch's own socket directory (egress proxy, relay), bound last.
    const launchSockets = prepared.mounts.filter((m) => m.op === "bind" && m.dest.endsWith("/sock")).map((m) => m.dest);
    return { seen: runProbe(argv, env), sockets: [...(channel === "socket" ? [socketDir] : []), ...launchSockets] };
  } finally {
    await prepared.close();
  }
}

const BUILTINS = ["files", "shell", "http", "documents", "mail"] as const;

describe.skipIf(!probe.available)("what each tool sandbox sees equals the documented view", () => {
  it.each(BUILTINS)("the built-in %s", async (id) => {
    const mod = (await import(`@palisade/capability-${id}/launch`)) as {
      command: readonly string[];
      manifestPath: string;
    };
    const acts = id === "files" || id === "shell";
    const { seen, sockets } = await probeCapability(id, mod.manifestPath, [...mod.command], "socket", {
      protocol: "palisade",
      ...(acts ? { config: { workspace } } : {}),
    });
    const manifest = await loadManifest(mod.manifestPath);
    const proxied = manifest.network.mode !== "none" ? Object.keys(proxyEnv(3128)) : [];
    checkView(seen, {
      ...(acts ? { workspace } : {}),
      sockets,
      program: join(root, "apps", "capabilities", id),
      env: documentedEnv("selu", ["PALISADE_CAPABILITY_SOCKET", ...proxied]),
    });
  });

  it("the shell capability's commands, run through the CapabilityHost as the Engine runs them", async () => {
    const mod = (await import("@palisade/capability-shell/launch")) as {
      command: readonly string[];
      manifestPath: string;
    };
    const host = new CapabilityHost({
      dataDir: join(dir, "data"),
      capabilities: [
        {
          id: "shell",
          manifest: mod.manifestPath,
          command: [...mod.command],
          protocol: "palisade",
          config: { workspace },
        },
      ],
      sandbox: settings,
      log: () => undefined,
    });
    try {
      const [status] = await host.start();
      expect(status?.state).toBe("ready");
      const r = await host.invoke(
        "shell__execute_command",
        { command: `python3 - <<'PROBE'\n${PROBE}\nPROBE` },
        { sessionId: "view", userId: "view", workspace },
      );
      expect(r.ok, r.content).toBe(true);
      const out = JSON.parse(r.content) as { output?: string };
      const seen = JSON.parse((out.output ?? "").trim().split("\n")[0] ?? "{}") as Seen;
      const sockDirs = seen.mounts
        .filter(
          (m) =>
            !m.ro &&
            (m.path.startsWith(settings.runBase) || m.path.includes("palisade-caps-") || /\/sock$/.test(m.path)),
        )
        .map((m) => m.path);
      // The mounts are the shell's own view; the environment is the command's (the shell adds its own).
      checkView(
        { ...seen, env: [] },
        { workspace, sockets: sockDirs, program: join(root, "apps", "capabilities", "shell"), env: new Set() },
      );
    } finally {
      await host.stop();
    }
  }, 60_000);

  it("an npm MCP server's (@modelcontextprotocol/server-everything, stdio, network: none)", async () => {
    const script = join(
      dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
      "dist",
      "index.js",
    );
    const wrap = sandboxedStdio({ workspace, protect: [join(dir, "data")], runRoot: settings.runBase });
    const spawned = await stdioSpawn(
      [process.execPath, script, "stdio"],
      {},
      undefined,
      { capabilityId: "everything", network: { mode: "none", hosts: [] }, filesystem: "workspace" },
      wrap,
    );
    try {
      const argv = [spawned.command, ...spawned.args];
      const probeArgv = [...argv.slice(0, argv.length - 3), ...PROBE_ARGV];
      const sockDir = argv.find((a) => a.startsWith(settings.runBase) && a.endsWith("/sock")) ?? "";
      const seen = runProbe(probeArgv, spawned.env ?? {});
      checkView(seen, {
        workspace,
        sockets: [sockDir],
        program: dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
        env: documentedEnv("mcp", []),
      });
    } finally {
      await spawned.close?.();
    }
  });

  it("a capability that declares a host socket (manifest sandbox.sockets) sees that one and no other", async () => {
    const declared = mkdtempSync("/run/pal-declared-");
    const other = mkdtempSync("/run/pal-other-");
    const servers = [join(declared, "db.sock"), join(other, "db.sock")].map((p) => {
      const server = createNetServer((c) => c.end("hello\n"));
      server.listen(p);
      return server;
    });
    try {
      const pkg = fileURLToPath(new URL("./fixtures/selu-server", import.meta.url));
      const manifest = join(dir, "declared-manifest.yaml");
      writeFileSync(
        manifest,
        `${readFileSync(join(pkg, "manifest.yaml"), "utf8")}sandbox:\n  sockets: [${declared}]\n`,
      );
      const { seen, sockets } = await probeCapability(
        "declared",
        manifest,
        [process.execPath, join(pkg, "main.mjs")],
        "port",
        { protocol: "selu" },
      );
      checkView(seen, { sockets: [...sockets, declared], program: pkg, env: documentedEnv("selu", ["PORT"]) });
      expect(seen.sockets).toContain(join(declared, "db.sock"));
      expect(seen.sockets).not.toContain(join(other, "db.sock"));
    } finally {
      for (const s of servers) s.close();
      rmSync(declared, { recursive: true, force: true });
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("a third-party Selu server's (its own package, PORT)", async () => {
    const pkg = fileURLToPath(new URL("./fixtures/selu-server", import.meta.url));
    const { seen, sockets } = await probeCapability(
      "third-party",
      join(pkg, "manifest.yaml"),
      [process.execPath, join(pkg, "main.mjs")],
      "port",
      { protocol: "selu" },
    );
    checkView(seen, { sockets, program: pkg, env: documentedEnv("selu", ["PORT"]) });
  });

  it("`palisade capability list --verbose` prints that view per capability, and --help names the option", () => {
    const main = join(root, "apps", "cli", "dist", "main.js");
    const data = join(dir, "cli-data");
    const env = { ...process.env, CI: "1" };
    const args = [
      "--config",
      join(dir, "none.yaml"),
      "--data-dir",
      data,
      "--workspace",
      workspace,
      "capability",
      "list",
    ];
    const listed = JSON.parse(
      execFileSync(process.execPath, [main, ...args, "--json", "--verbose"], { env, timeout: 120_000 }).toString(),
    ) as {
      capabilities: Array<{ id: string; view?: Array<{ path: string; access: string; target?: string }> }>;
    };
    const byId = new Map(listed.capabilities.map((c) => [c.id, c.view ?? []]));
    const documented = documentedView().filter((e) => !e.path.startsWith("$") && e.access !== "link");
    for (const id of BUILTINS) {
      const view = byId.get(id) ?? [];
      const paths = new Map(view.map((v) => [v.path, v.access]));
      for (const e of documented) {
        // What exists on this host is listed, with its access (made files read-only; a link where the host has one).
        if (!existsSync(e.path) && e.access === "read-only") continue;
        const access = paths.get(e.path);
        expect(access, `${id}: ${e.path}`).toBeDefined();
        if (e.access === "made") expect(access).toBe("read-only");
        else if (e.access === "private") expect(access).toBe("private");
        else expect(["read-only", "link"]).toContain(access);
      }
      expect(paths.get(workspace), `${id}: the workspace`).toBe(
        id === "files" || id === "shell" ? "read-write" : undefined,
      );
      expect(paths.get(join(root, "apps", "capabilities", id)), `${id}: its code`).toBe("read-only");
      for (const v of view)
        expect(v.path === "/" || v.path.startsWith("/var/lib") || v.path === "/etc/shadow", `${id}: ${v.path}`).toBe(
          false,
        );
    }
    const text = execFileSync(process.execPath, [main, ...args, "--verbose"], { env, timeout: 120_000 }).toString();
    expect(text).toContain("sandbox view (everything else of the host is absent):");
    expect(execFileSync(process.execPath, [main, "capability", "list", "--help"], { env }).toString()).toMatch(
      /--verbose\s+also print each sandbox's view/,
    );
  }, 240_000);
});
