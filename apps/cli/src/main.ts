#!/usr/bin/env node
// Node's compile cache keeps the V8 code of every module this process loads, so the next start
// skips compiling them (the Engine runs from this file too). It lives beside the code it caches
// and is writable by whoever may change that code, so it opens no new way in; where this checkout
// is read-only it is simply not written. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
import { enableCompileCache } from "node:module";
import { fileURLToPath } from "node:url";

enableCompileCache(fileURLToPath(new URL("../.cache/node-compile", import.meta.url)));
// Loaded after the cache is on: static imports would be compiled before it.
const { processIo } = await import("./cli/io.js");
const { runCli } = await import("./cli/run-cli.js");

const code = await runCli(process.argv.slice(2), processIo());
// Writes to stdout/stderr are synchronous on Linux (files, pipes, TTYs), so nothing is lost;
// exiting explicitly keeps an idle gRPC channel from holding the process open.
process.exit(code);
