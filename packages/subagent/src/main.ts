#!/usr/bin/env node
// The sub-agent process entry: started by the Engine as compiled JS under the Agent's sandbox.
import { SubAgentConfigError, readSubAgentConfig } from "./config.js";
import { runSubAgent } from "./run.js";

async function main(): Promise<number> {
  let config;
  try {
    config = readSubAgentConfig(process.env);
  } catch (err) {
    if (err instanceof SubAgentConfigError) {
      process.stderr.write(`palisade-subagent: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const stop = new AbortController();
  process.once("SIGTERM", () => stop.abort());
  const exit = await runSubAgent({ config, env: process.env, signal: stop.signal });
  if (exit.code !== 0) process.stderr.write(`palisade-subagent: ${exit.reason}\n`);
  return exit.code;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`palisade-subagent: unexpected failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
