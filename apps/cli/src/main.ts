#!/usr/bin/env node
import { processIo } from "./cli/io.js";
import { runCli } from "./cli/run-cli.js";

const code = await runCli(process.argv.slice(2), processIo());
// Writes to stdout/stderr are synchronous on Linux (files, pipes, TTYs), so nothing is lost;
// exiting explicitly keeps an idle gRPC channel from holding the process open.
process.exit(code);
