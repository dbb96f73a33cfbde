// The background Engine (dist/engine-main.js) runs from its one-file bundle (scripts/bundle.mjs,
// made by `make build`): what the Engine process loads, and that it serves a real turn from it.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshBundleEntry } from "@palisade/agent/bundle";
import { echoReply, startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";

const repo = join(import.meta.dirname, "..", "..", "..");
const dist = join(repo, "apps", "cli", "dist");
const main = join(dist, "main.js");
const engineBundle = join(dist, "engine-bundle");

// Every process that has it in NODE_OPTIONS writes the file modules it loaded to $PAL_LOADED.<pid>
// (the Agent does not: its environment is built from nothing).
const HOOK = `import { registerHooks } from "node:module";
import { writeFileSync } from "node:fs";
const seen = [];
registerHooks({ load(url, context, next) { if (url.startsWith("file:")) seen.push(url); return next(url, context); } });
process.on("exit", () => writeFileSync(process.env.PAL_LOADED + "." + process.pid, seen.join("\\n")));
`;

describe.skipIf(!existsSync(main))("the background Engine's bundle", () => {
  let model: ScriptedServer;
  let root: string;
  beforeAll(async () => {
    // What `make build` does after tsc.
    if (!freshBundleEntry(engineBundle, repo))
      execFileSync(process.execPath, [join(repo, "scripts", "bundle.mjs"), "engine"], { stdio: "ignore" });
    model = await startScriptedServer({ fallback: echoReply, tokenDelayMs: 0 });
    root = mkdtempSync(join(tmpdir(), "pal-engine-bundle-"));
    mkdirSync(join(root, "w"));
    writeFileSync(join(root, "hook.mjs"), HOOK);
    writeFileSync(join(root, "config.yaml"), `model:\n  base_url: ${model.baseURL}\n  name: scripted-model\n`);
  }, 60_000);
  afterAll(async () => {
    await palisade(["engine", "stop"]);
    await model?.close();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  function palisade(args: string[]): Promise<{ code: number; out: string; err: string }> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [main, "--data-dir", join(root, "d"), "--config", join(root, "config.yaml"), ...args],
        {
          cwd: join(root, "w"),
          env: {
            PATH: process.env.PATH ?? "",
            HOME: root,
            NODE_OPTIONS: `--import=${join(root, "hook.mjs")}`,
            PAL_LOADED: join(root, "loaded"),
          },
          timeout: 90_000,
        },
        (error, out, err) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out, err }),
      );
    });
  }

  it("a cold `run` starts the Engine from the bundle: it answers, and the Engine process loaded no module of packages/ or node_modules but the SQLite addon and the built-in capabilities' launch modules", async () => {
    expect(freshBundleEntry(engineBundle, repo)).toBe(join(engineBundle, "engine.mjs"));
    const r = await palisade(["run", "hello from the bundled Engine"]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("hello from the bundled Engine");
    const pid = (JSON.parse(readFileSync(join(root, "d", "engine.json"), "utf8")) as { pid: number }).pid;
    expect(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")).toContain(join(dist, "engine-main.js"));

    await palisade(["engine", "stop"]);
    const file = readdirSync(root).find((f) => f === `loaded.${pid}`);
    expect(file, "the Engine's list of loaded modules").toBeDefined();
    const loaded = readFileSync(join(root, file ?? ""), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((u) => decodeURIComponent(u).replace(`file://${repo}/`, ""))
      .filter((f) => f !== `file://${join(root, "hook.mjs")}`);
    expect(loaded).toContain("apps/cli/dist/engine-main.js");
    expect(loaded).toContain("apps/cli/dist/engine-bundle/engine.mjs");
    const outside = loaded.filter(
      (f) =>
        ![
          "apps/cli/dist/engine-main.js",
          "packages/agent/dist/bundle.js",
          "apps/cli/dist/engine-bundle/engine.mjs",
        ].includes(f) &&
        !/^apps\/capabilities\/\w+\/dist\/launch\.js$/.test(f) &&
        !f.startsWith("node_modules/better-sqlite3/") &&
        !f.startsWith("node_modules/bindings/") &&
        !f.startsWith("node_modules/file-uri-to-path/"),
    );
    expect(outside).toEqual([]);
  }, 120_000);
});
