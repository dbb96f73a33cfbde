// Bundles the processes a cold `palisade run` or `chat` waits for into one file each (esbuild), run
// by `make build` after `tsc -b` (the CLI's client commands: apps/cli/scripts/bundle-client.mjs).
// Loading hundreds of small modules costs Node more than compiling them (resolution, package.json
// lookups, stats); one file skips that.
//  - the Agent: packages/agent/dist/main.js → packages/agent/dist/bundle/agent.mjs
//  - the background Engine (apps/cli/src/engine-main.ts loads it):
//    apps/cli/dist/engine/foreground.js → apps/cli/dist/engine-bundle/engine.mjs
// Each bundle directory has inputs.json (the mtime and size of every input of this checkout, and of
// each third-party package's package.json): a launcher uses the bundle only while they match
// (freshBundleEntry in @palisade/agent/bundle), so after `npx tsc -b` alone the compiled modules
// run instead of stale code.
// Usage: node scripts/bundle.mjs [agent|engine ...]   (default: both)
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { recordInputs, swapDir } from "./bundle-output.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");

const BUNDLES = {
  agent: { entry: "packages/agent/dist/main.js", outdir: "packages/agent/dist/bundle", name: "agent.mjs" },
  engine: {
    entry: "apps/cli/dist/engine/foreground.js",
    outdir: "apps/cli/dist/engine-bundle",
    name: "engine.mjs",
    external: ["better-sqlite3"],
  },
};

/**
 * Modules that find files beside themselves (`new URL("../x", import.meta.url)`, a package's root)
 * keep doing so from inside the bundle: their import.meta.url becomes their own file's URL,
 * spelled relative to the bundle so the checkout can move.
 */
function ownImportMetaUrl(outdir) {
  return {
    name: "own-import-meta-url",
    setup(b) {
      b.onLoad({ filter: /\.(c|m)?js$/ }, (args) => {
        const text = readFileSync(args.path, "utf8");
        if (!text.includes("import.meta.url")) return undefined;
        const rel = relative(outdir, args.path).split(sep).join("/");
        return {
          contents: text.replaceAll("import.meta.url", `new URL(${JSON.stringify(rel)}, import.meta.url).href`),
          loader: "js",
        };
      });
    },
  };
}

async function bundle(spec) {
  if (!existsSync(join(repo, spec.entry))) throw new Error(`${spec.entry} is missing: run \`npx tsc -b\` first`);
  const outdir = join(repo, spec.outdir);
  // Every input as it was recorded (this script among them): the bundle stands, as the client's does.
  const { freshBundleEntry } = await import(join(repo, "packages", "agent", "dist", "bundle.js"));
  if (freshBundleEntry(outdir, repo)) {
    console.log(`${spec.outdir}/${spec.name} up to date`);
    return;
  }
  const tmp = `${outdir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: repo, // the metafile's paths are relative to it
    entryPoints: [join(repo, spec.entry)],
    outfile: join(tmp, spec.name),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    // Error classes report new.target.name: names must survive the bundle's renaming.
    keepNames: true,
    external: spec.external ?? [],
    // The paths are rewritten for the final directory (same depth as tmp).
    plugins: [ownImportMetaUrl(outdir)],
    // CommonJS dependencies call require(): give the ES module bundle a real one.
    banner: {
      js: 'import { createRequire as __bundleRequire } from "node:module";\nconst require = __bundleRequire(import.meta.url);',
    },
    metafile: true,
    logLevel: "warning",
  });
  const recorded = recordInputs(tmp, repo, spec.name, result.metafile, import.meta.url);
  // Swapped in whole: a process starting meanwhile sees the old bundle or the new one.
  swapDir(tmp, outdir);
  console.log(
    `bundled ${spec.entry}: ${recorded} inputs -> ${spec.outdir}/${spec.name} (${(statSync(join(outdir, spec.name)).size / 1e6).toFixed(1)} MB)`,
  );
}

const names = process.argv.slice(2);
for (const name of names)
  if (!(name in BUNDLES)) throw new Error(`unknown bundle ${name}: one of ${Object.keys(BUNDLES).join(", ")}`);
for (const [name, spec] of Object.entries(BUNDLES)) {
  if (names.length === 0 || names.includes(name)) await bundle(spec);
}
