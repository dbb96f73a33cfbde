#!/usr/bin/env node
// Stand-alone entry for testing: `palisade-shield check|eval|policy ...` (apps/cli wires `palisade shield`).
import { runShieldCli } from "./cli/main.js";

const code = await runShieldCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env });
process.exitCode = code;
