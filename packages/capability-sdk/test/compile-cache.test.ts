// useCompileCache and scripts/compile-cache.mjs, on real Node processes running the compiled SDK.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const sdk = (file: string): string => pathToFileURL(join(packageDir, "dist", file)).href;
const base = mkdtempSync(join(tmpdir(), "palisade-compile-cache-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function run(args: string[], stdin?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: base,
      env: { PATH: process.env.PATH },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdin.end(stdin ?? "");
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A script that turns the cache on for `dir`, then imports a module and prints what Node says. */
function entry(name: string, dir: string): string {
  const file = join(base, `${name}.mjs`);
  writeFileSync(join(base, `${name}-lib.mjs`), "export const answer = () => 42;\n");
  writeFileSync(
    file,
    `import { getCompileCacheDir } from "node:module";
const { useCompileCache } = await import(${JSON.stringify(sdk("compile-cache.js"))});
const used = useCompileCache(${JSON.stringify(dir)});
const { answer } = await import("./${name}-lib.mjs");
console.log(JSON.stringify({ used, dir: getCompileCacheDir() ?? null, answer: answer() }));
`,
  );
  return file;
}

describe("useCompileCache", () => {
  it("loads later imports with the cache in an existing directory, which Node fills at exit", async () => {
    const dir = join(base, "cache");
    mkdirSync(dir);
    const r = await run([entry("with", dir)]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { used: boolean; dir: string; answer: number };
    expect(out).toMatchObject({ used: true, answer: 42 });
    expect(out.dir.startsWith(dir)).toBe(true);
    expect(readdirSync(out.dir).length).toBeGreaterThan(0);
  });

  it("never creates a cache directory at run time", async () => {
    const dir = join(base, "absent");
    const r = await run([entry("without", dir)]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ used: false, dir: null, answer: 42 });
    expect(existsSync(dir)).toBe(false);
  });
});

describe("scripts/compile-cache.mjs", () => {
  /** A capability package as the built-ins are: dist/main.js turns the cache on, then serves. */
  function capabilityPackage(name: string, serve: string): string {
    const dir = join(base, name);
    mkdirSync(join(dir, "dist"), { recursive: true });
    writeFileSync(join(dir, "package.json"), `{"type": "module"}\n`);
    writeFileSync(
      join(dir, "dist", "main.js"),
      `const { COMPILE_CACHE_DIR, useCompileCache } = await import(${JSON.stringify(sdk("compile-cache.js"))});
useCompileCache(new URL(COMPILE_CACHE_DIR, import.meta.url));
${serve}
`,
    );
    return dir;
  }
  const script = join(packageDir, "scripts", "compile-cache.mjs");

  it("starts each capability as the Engine does, asks for a Healthcheck, and keeps the code cache Node wrote", async () => {
    const good = capabilityPackage(
      "good",
      `const { defineCapability, serveCapability } = await import(${JSON.stringify(sdk("index.js"))});
await serveCapability(defineCapability({ id: "good", tools: [{ name: "t", description: "T.", inputSchema: { type: "object" }, handler: async () => ({}) }] }));`,
    );
    const r = await run([script, good]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("compile cache: good/dist/compile-cache");
    const versions = readdirSync(join(good, "dist", "compile-cache"));
    expect(versions).toHaveLength(1);
    expect(readdirSync(join(good, "dist", "compile-cache", versions[0] ?? "")).length).toBeGreaterThan(10);

    // Nothing changed: the next build keeps the cache without starting the capability again.
    const cacheDir = join(good, "dist", "compile-cache", versions[0] ?? "");
    const before = statSync(cacheDir).mtimeMs;
    const again = await run([script, good]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("compile cache up to date");
    expect(statSync(cacheDir).mtimeMs).toBe(before);

    // Its code changed: made again.
    const main = join(good, "dist", "main.js");
    utimesSync(main, new Date(), new Date(Date.now() + 5000));
    const changed = await run([script, good]);
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toContain("compile cache: good/dist/compile-cache");
  });

  it("leaves no cache for a capability that does not start, and says why, without failing", async () => {
    const bad = capabilityPackage("bad", `throw new Error("cannot start here");`);
    mkdirSync(join(bad, "dist", "compile-cache")); // from an earlier build
    const r = await run([script, bad]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/compile cache: none for .*bad: exited \(1\) before listening: .*cannot start here/s);
    expect(existsSync(join(bad, "dist", "compile-cache"))).toBe(false);
  });
});
