// The client bundle (dist/bundle/client.cjs, made by `make build`): which commands it serves, when
// it is used (only while it matches what it was made from), its code cache, and what a client
// command loads through it against a real Engine: no module of node_modules, ink, or the Engine.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { echoReply, startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { freshBundleEntry } from "../src/cli/client-bundle.js";
import { cacheKey } from "../src/cli/load-bundle.js";
import type { BundleInputs } from "../src/cli/client-bundle.js";
import { parseCommandLine } from "../src/cli/parse.js";
import { COMMAND_TREE } from "../src/cli/tree.js";
import { CLIENT_COMMANDS, servesCommand } from "../src/client.js";

const repo = join(import.meta.dirname, "..", "..", "..");
const dist = join(repo, "apps", "cli", "dist");
const main = join(dist, "main.js");
const bundleDir = join(dist, "bundle");
const built = existsSync(main);

describe("the commands the client bundle serves", () => {
  it.each([
    [["sessions", "list"], true],
    [["--data-dir", "/tmp/x", "sessions", "list", "--json"], true],
    [["run", "hi", "--session", "abc"], true],
    [["sessions", "show", "abc"], true],
    [["artifacts", "list"], true],
    [["engine", "status", "--json"], true],
    [["engine", "stop"], true],
    [["sessions"], true], // help
    [["chat", "--help"], true],
    [["--version"], true],
    [["sessions", "lsit"], true], // the usage error, printed the same from either
    [["chat"], false],
    [["engine", "start", "--foreground"], false], // the Engine itself
    [["engine", "start"], false],
    [["engine", "restart"], false],
    [["shield", "check", "--tool", "t", "--args", "{}"], false],
    [["capability", "list"], false],
    [["audit", "verify"], false],
  ])("%j → %s", (argv, served) => {
    expect(servesCommand(argv)).toBe(served);
  });

  it("lists only commands that exist", () => {
    for (const words of CLIENT_COMMANDS) {
      const parsed = parseCommandLine(COMMAND_TREE, [...words.split(" "), "--help"]);
      expect(parsed.path.join(" ")).toBe(words);
      expect(parsed.spec.run).toBeTypeOf("function");
    }
  });
});

describe("whether the bundle is used", () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "pal-bundle-fresh-"));
    mkdirSync(join(root, "bundle"));
    writeFileSync(join(root, "a.js"), "a");
    writeFileSync(join(root, "b.js"), "bb");
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const record = (inputs: BundleInputs["inputs"]): void =>
    writeFileSync(join(root, "bundle", "inputs.json"), JSON.stringify({ entry: "client.js", inputs }));
  const now = (file: string): [string, number, number] => {
    const st = statSync(join(root, file));
    return [file, st.mtimeMs, st.size];
  };

  it("while every input has the recorded mtime and size", () => {
    record([now("a.js"), now("b.js")]);
    expect(freshBundleEntry(join(root, "bundle"), root)).toBe(join(root, "bundle", "client.js"));
  });

  it("not once an input was rewritten (another mtime), resized or removed", () => {
    record([now("a.js"), now("b.js")]);
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(root, "b.js"), later, later);
    expect(freshBundleEntry(join(root, "bundle"), root)).toBeUndefined();
    record([now("a.js"), now("b.js")]);
    const [, mtime] = now("a.js");
    writeFileSync(join(root, "a.js"), "aa");
    utimesSync(join(root, "a.js"), mtime / 1000, mtime / 1000);
    expect(freshBundleEntry(join(root, "bundle"), root)).toBeUndefined();
    record([now("a.js"), ["gone.js", 1, 1]]);
    expect(freshBundleEntry(join(root, "bundle"), root)).toBeUndefined();
  });

  it("not without a readable record", () => {
    writeFileSync(join(root, "bundle", "inputs.json"), "{not json");
    expect(freshBundleEntry(join(root, "bundle"), root)).toBeUndefined();
    record([]);
    expect(freshBundleEntry(join(root, "bundle"), root)).toBeUndefined();
    rmSync(join(root, "bundle", "inputs.json"));
    expect(freshBundleEntry(join(root, "bundle"), root)).toBeUndefined();
  });
});

// Records the file modules a process loads (URLs, one a line) into $PAL_LOADED at exit.
const HOOK = `import { registerHooks } from "node:module";
import { writeFileSync } from "node:fs";
const seen = [];
registerHooks({ load(url, context, next) { if (url.startsWith("file:")) seen.push(url); return next(url, context); } });
process.on("exit", () => writeFileSync(process.env.PAL_LOADED, seen.join("\\n")));
`;

describe.skipIf(!built)("client commands through the bundle, against a real Engine", () => {
  let model: ScriptedServer;
  let root: string;
  let data: string;
  let config: string;
  let hook: string;
  beforeAll(async () => {
    // What `make build` does after tsc; nothing when the bundle is up to date.
    if (!freshBundleEntry(bundleDir, repo))
      execFileSync(process.execPath, [join(repo, "apps", "cli", "scripts", "bundle-client.mjs")], { stdio: "ignore" });
    model = await startScriptedServer({ fallback: echoReply, tokenDelayMs: 0 });
    root = mkdtempSync(join(tmpdir(), "pal-bundle-"));
    data = join(root, "d");
    config = join(root, "config.yaml");
    hook = join(root, "hook.mjs");
    writeFileSync(hook, HOOK);
    mkdirSync(join(root, "w"));
    writeFileSync(config, `model:\n  base_url: ${model.baseURL}\n  name: scripted-model\n`);
  }, 60_000);
  afterAll(async () => {
    await palisade(["engine", "stop"]);
    await model?.close();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  let n = 0;
  /** `palisade <args>` from dist/main.js, with the modules it loaded (paths relative to the repo). */
  function palisade(
    args: string[],
    env: Record<string, string> = {},
  ): Promise<{ code: number; out: string; err: string; loaded: string[] }> {
    const loadedFile = join(root, `loaded-${++n}`);
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ["--import", hook, main, "--data-dir", data, "--config", config, ...args],
        {
          cwd: join(root, "w"),
          env: { PATH: process.env.PATH ?? "", HOME: root, PAL_LOADED: loadedFile, ...env },
          timeout: 90_000,
        },
        (error, out, err) => {
          const loaded = existsSync(loadedFile)
            ? readFileSync(loadedFile, "utf8")
                .split("\n")
                .filter(Boolean)
                .map((u) => decodeURIComponent(u).replace(`file://${repo}/`, ""))
            : [];
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out, err, loaded });
        },
      );
    });
  }

  /** What Node's loader loads for a client command: main.js and what checks and loads the bundle (a vm.Script). */
  const LOADER = [
    "apps/cli/dist/cli/client-bundle.js",
    "apps/cli/dist/cli/client-commands.js",
    "apps/cli/dist/cli/io.js",
    "apps/cli/dist/cli/load-bundle.js",
    "apps/cli/dist/main.js",
    "packages/agent/dist/bundle.js",
  ];
  /**
   * The command ran from the bundle: no module of dist/commands, node_modules or the Engine came
   * through Node's loader, only the loader's own and the Shield's tool-semantics parser (which the
   * config parser imports while the setup comparison runs).
   */
  function expectClientPath(loaded: string[]): void {
    const others = loaded.filter(
      (f) => !f.startsWith("packages/shield/dist/semantics/") && f !== "packages/shield/dist/errors.js",
    );
    expect(others.sort()).toEqual(LOADER);
  }

  it("sessions list with no Engine starts one from the bundle (the Engine runs from engine-main.js, not the client bundle) and lists", async () => {
    const r = await palisade(["sessions", "list"]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain("starting the Engine");
    expect(r.out).toContain("No stored sessions yet.");
    // It leaves the Engine running, and says so.
    const started = (JSON.parse(readFileSync(join(data, "engine.json"), "utf8")) as { pid: number }).pid;
    expect(r.err).toContain(
      `(the Engine started for this command keeps running, pid ${started}, so the next one is quick;`,
    );
    expect(r.err).toMatch(/engine stop' stops it\)/);
    expectClientPath(r.loaded);
    const pid = (JSON.parse(readFileSync(join(data, "engine.json"), "utf8")) as { pid: number }).pid;
    // The Engine is `dist/engine-main.js … engine start --foreground` (its own bundle: scripts/bundle.mjs), not the client bundle.
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    expect(cmdline).toContain(join(dist, "engine-main.js"));
    expect(cmdline.slice(-3)).toEqual(["engine", "start", "--foreground"]);
  }, 120_000);

  it("run streams the answer, loading neither node_modules nor ink, React, openai, ajv or the Engine", async () => {
    const r = await palisade(["run", "hello from the bundle"]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("hello from the bundle");
    expectClientPath(r.loaded);
    expect(r.loaded.join("\n")).not.toMatch(/node_modules|packages\/engine|\/tui\//);
  }, 60_000);

  it("sessions list, engine status: the same output from the bundle and from dist/ (PALISADE_CLI_BUNDLE=0)", async () => {
    for (const args of [
      ["sessions", "list"],
      ["sessions", "list", "--json"],
      ["engine", "status", "--json"],
    ]) {
      const bundled = await palisade(args);
      const plain = await palisade(args, { PALISADE_CLI_BUNDLE: "0" });
      expect(bundled.code, bundled.err).toBe(0);
      expect(plain.code, plain.err).toBe(0);
      expectClientPath(bundled.loaded);
      // The setup comparison is remembered since `run`: its config parser does not run again.
      expect(bundled.loaded.join("\n")).not.toMatch(/packages\/shield/);
      expect(plain.loaded.some((f) => f.startsWith("apps/cli/dist/bundle/") || f.endsWith("load-bundle.js"))).toBe(
        false,
      );
      expect(plain.loaded.some((f) => f.startsWith("node_modules/@grpc/grpc-js/"))).toBe(true);
      const normalize = (s: string): string => s.replace(/"uptimeMs":\d+/g, "").replace(/up \d+[smh].*/g, "");
      expect(normalize(bundled.out)).toBe(normalize(plain.out));
      expect(bundled.err).toBe(plain.err);
    }
    expect((await palisade(["sessions", "list"])).out).toContain("hello from the bundle");
  }, 60_000);

  it("a cold run on an invalid config: the Engine refuses it and the config check, loaded from the bundle, prints the problem and no Node warning", async () => {
    const bad = join(root, "bad.yaml");
    writeFileSync(bad, `model:\n  base_url: ${model.baseURL}\n  nme: scripted-model\n`);
    const r = await new Promise<{ code: number; err: string }>((resolve) => {
      execFile(
        process.execPath,
        [main, "--data-dir", join(root, "cold"), "--config", bad, "run", "hi"],
        { cwd: join(root, "w"), env: { PATH: process.env.PATH ?? "", HOME: root }, timeout: 90_000 },
        (error, _out, err) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, err }),
      );
    });
    expect(r.code).not.toBe(0);
    expect(r.err).toContain(`${bad}: model.nme: unknown key`);
    expect(r.err).not.toMatch(/Warning|experimental/i);
  }, 90_000);

  it("a command the bundle does not serve runs from dist/ (shield check)", async () => {
    const r = await palisade([
      "shield",
      "check",
      "--tool",
      "shell__execute_command",
      "--args",
      '{"command":"rm -rf ~"}',
    ]);
    expect(r.err).not.toContain("not in the client bundle");
    expect(r.out).toMatch(/BLOCK/);
    expect(r.loaded).toContain("apps/cli/dist/cli/load-bundle.js"); // the bundle decided
    expect(r.loaded).toContain("apps/cli/dist/commands/shield.js");
  }, 60_000);

  it("keeps a V8 code cache per command: written by the first run, then used as is; a rejected one is written anew", async () => {
    const cache = join(bundleDir, "code-cache", "engine-status.v8");
    rmSync(cache, { force: true });
    expect((await palisade(["engine", "status"])).code).toBe(0);
    const first = readFileSync(cache);
    expect(first.length).toBeGreaterThan(100_000); // the functions the command ran, not only the top level
    const { mtimeMs } = statSync(cache);
    const again = await palisade(["engine", "status"]);
    expect(again.code, again.err).toBe(0);
    expectClientPath(again.loaded);
    expect(statSync(cache).mtimeMs).toBe(mtimeMs);
    writeFileSync(cache, "not a code cache");
    const rejected = await palisade(["engine", "status"]);
    expect(rejected.code, rejected.err).toBe(0);
    expect(rejected.out).toContain("Running");
    expect(readFileSync(cache).length).toBeGreaterThan(100_000);
  }, 60_000);

  it("PALISADE_DEBUG loads the bundle through Node's loader, so stack traces map to the TypeScript sources", async () => {
    const r = await palisade(["sessions", "list"], { PALISADE_DEBUG: "1" });
    expect(r.code, r.err).toBe(0);
    expect(r.loaded).toContain("apps/cli/dist/bundle/client.cjs");
    expect(r.loaded.some((f) => f.startsWith("node_modules/"))).toBe(false);
  }, 60_000);
});

describe("the code cache's name", () => {
  it.each([
    [["sessions", "list"], "sessions-list"],
    [["--data-dir", "/tmp/d", "--config", "/tmp/c", "sessions", "list", "--json"], "sessions-list"],
    [["run", "a prompt that never becomes a file name"], "run"],
    [["--workspace", "/w", "run", "--session", "abc", "hi"], "run"],
    [["engine", "status"], "engine-status"],
    [["chat"], "other"],
    [["sessions", "../../etc"], "other"],
    [[], "other"],
  ])("%j → %s", (argv, key) => {
    expect(cacheKey(argv)).toBe(key);
  });
});
