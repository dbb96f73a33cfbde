#!/usr/bin/env node
// Node's compile cache keeps the V8 code of every module this process loads, so the next start
// skips compiling them (the Engine runs from this file too). It lives beside the code it caches
// and is writable by whoever may change that code, so it opens no new way in; where this checkout
// is read-only it is simply not written. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
import { enableCompileCache } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

enableCompileCache(fileURLToPath(new URL("../.cache/node-compile", import.meta.url)));
// Loaded after the cache is on: static imports would be compiled before it.
const { processIo } = await import("./cli/io.js");
const argv = process.argv.slice(2);
const io = processIo();
// Stack traces (PALISADE_DEBUG) name the TypeScript sources, through the bundle's source maps too.
if (io.env.PALISADE_DEBUG) process.setSourceMapsEnabled(true);

// The client commands (run, sessions, artifacts, engine status/stop) run from the bundle that
// `make build` makes (dist/bundle/: one file to load instead of a few hundred modules) while it
// matches the compiled code; PALISADE_CLI_BUNDLE=0 runs them from dist/ like every other command.
let code: number | undefined;
if (io.env.PALISADE_CLI_BUNDLE !== "0") {
  const { freshBundleEntry } = await import("./cli/client-bundle.js");
  const bundleDir = fileURLToPath(new URL("./bundle", import.meta.url));
  const entry = freshBundleEntry(bundleDir, fileURLToPath(new URL("../../..", import.meta.url)));
  if (entry) {
    const { cacheKey, loadBundle } = await import("./cli/load-bundle.js");
    code = await loadBundle(
      entry,
      join(bundleDir, "code-cache"),
      cacheKey(argv),
      Boolean(io.env.PALISADE_DEBUG),
    ).runClient(argv, io);
  }
}
if (code === undefined) {
  const { runCli } = await import("./cli/run-cli.js");
  code = await runCli(argv, io);
}
// Writes to stdout/stderr are synchronous on Linux (files, pipes, TTYs), so nothing is lost;
// exiting explicitly keeps an idle gRPC channel from holding the process open.
process.exit(code);
