// Bundles the CLI's client commands (apps/cli/src/client.ts, compiled by tsc into dist/client.js)
// into dist/bundle/client.cjs: esbuild, one CommonJS script (loaded by src/cli/load-bundle.ts),
// source maps chained to the TypeScript sources. Run by `make build` after `tsc -b`.
//  - @palisade/protocol, @grpc/grpc-js and @bufbuild/protobuf are bundled: most of what a client
//    command loads.
//  - So are @palisade/config/discovery and /setup (finding the running Engine and comparing its
//    setup, with the config parser): every client command runs them.
//  - Every other @palisade/* import stays an import of the package as is (the Engine, its
//    start-up checks, the Shield, capabilities: their code finds files next to itself).
//  - Command modules the bundle does not serve (src/client.ts lists what it does) are replaced by
//    a module that throws, so a dispatch mistake fails loudly instead of loading a second copy of
//    the CLI.
// dist/bundle/inputs.json records the mtime and size of every input of this checkout and of the
// package.json of every third-party package in the bundle; main.ts uses the bundle only while they
// match (src/cli/client-bundle.ts), and this script does nothing when they do.
import { rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { recordInputs, swapDir } from "../../../scripts/bundle-output.mjs";

const cli = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(cli, "..", "..");
const dist = join(cli, "dist");
const outdir = join(dist, "bundle");
const { freshBundleEntry } = await import(join(dist, "cli", "client-bundle.js"));

/** The command modules (dist/commands/<name>.js) of the commands src/client.ts serves. */
const CLIENT_MODULES = new Set(["run-command", "sessions", "artifacts", "engine"]);
/**
 * Bundled @palisade packages: the gRPC client, what finds and compares the running Engine (with the
 * store URL parser, the Agent's model defaults and the schema helpers its config check uses), the
 * terminal-text rule, the words of a decision, the order of a turn's text and tool calls.
 */
const BUNDLED_PACKAGES =
  /^@palisade\/(protocol(\/|$)|config\/(setup|discovery)$|agent\/settings$|schema$|shield\/(visible|words)$|store\/(pg-url|text-order)$)/;

if (freshBundleEntry(outdir, repo)) {
  console.log("client bundle up to date");
  process.exit(0);
}

const clientOnly = {
  name: "client-only",
  setup(b) {
    b.onResolve({ filter: /^@palisade\// }, (args) =>
      BUNDLED_PACKAGES.test(args.path) ? undefined : { path: args.path, external: true },
    );
    // The command table (cli/tree.js, cli/tree-tools.js) imports every command's module.
    b.onResolve({ filter: /^\.\.\/commands\/[\w-]+\.js$/ }, (args) => {
      if (!/[/\\]cli[/\\]tree(-tools)?\.js$/.test(args.importer)) return undefined;
      const name = /([\w-]+)\.js$/.exec(args.path)[1];
      return CLIENT_MODULES.has(name) ? undefined : { path: name, namespace: "not-in-client-bundle" };
    });
    b.onLoad({ filter: /.*/, namespace: "not-in-client-bundle" }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`commands/${args.path}.js is not in the client bundle: src/client.ts served a command it should not (PALISADE_CLI_BUNDLE=0 runs without the bundle)`)});`,
      loader: "js",
    }));
  },
};

const tmp = `${outdir}.tmp-${process.pid}`;
rmSync(tmp, { recursive: true, force: true });
const result = await build({
  absWorkingDir: repo, // the metafile's paths are relative to it
  entryPoints: [join(dist, "client.js")],
  outfile: join(tmp, "client.cjs"),
  bundle: true,
  // One CommonJS script, so src/cli/load-bundle.ts can compile it with vm.Script and keep V8's code
  // cache of it after it ran (Node's compile cache of a module holds only what compiled eagerly).
  format: "cjs",
  platform: "node",
  target: "node22",
  // `import()` of what stays outside (the Engine's config code on a bad config, the Engine itself)
  // becomes require(): an import() inside a vm.Script needs vm's experimental main-context loader,
  // which prints an ExperimentalWarning to the user; Node >= 22.12 requires ES modules silently.
  supported: { "dynamic-import": false },
  sourcemap: "linked",
  metafile: true,
  logLevel: "warning",
  define: { "import.meta.url": "__palisadeImportMetaUrl" },
  banner: { js: 'var __palisadeImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  // a native addon, loaded from node_modules when a command starts an Engine (engine/lock.ts)
  external: ["better-sqlite3"],
  plugins: [clientOnly],
});

// Checked before every client command: this checkout's files one by one, a third-party package by
// its package.json, ~80 stats instead of ~300.
const recorded = recordInputs(tmp, repo, "client.cjs", result.metafile, import.meta.url);
// Swapped in whole, the code caches of the old one (dist/bundle/code-cache) going with it: V8 would
// take a cache made for another source of the same length. A command starting meanwhile sees the
// old bundle or the new one.
swapDir(tmp, outdir);
console.log(`client bundle: ${recorded} inputs -> ${relative(repo, outdir)}`);
