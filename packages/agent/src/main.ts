#!/usr/bin/env node
// The Agent process entry: run by the Engine as compiled JS under Node's permission model.
import { readAgentConfig } from "./config.js";
import { runAgent } from "./connection.js";
import { AgentConfigError } from "./errors.js";

async function main(): Promise<number> {
  let config;
  try {
    config = readAgentConfig(process.env);
  } catch (err) {
    if (err instanceof AgentConfigError) {
      process.stderr.write(`palisade-agent: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const exit = await runAgent({ config });
  if (exit.code !== 0) process.stderr.write(`palisade-agent: ${exit.reason}\n`);
  return exit.code;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`palisade-agent: unexpected failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
