#!/usr/bin/env node
// The Agent process entry: run by the Engine as compiled JS under Node's permission model.
import { readAgentConfig } from "./config.js";
import { runAgent } from "./connection.js";
import { AgentConfigError } from "./errors.js";
import { readSpawnToken } from "./parent.js";

async function main(): Promise<number> {
  let config;
  try {
    // No token (stdin not from an Engine) is one more problem in the list below.
    const token = await readSpawnToken(process.stdin, () => {
      process.stderr.write("palisade-agent: the Engine is gone (its pipe on stdin closed); exiting\n");
      process.exit(1);
    }).catch(() => "");
    config = readAgentConfig(process.env, { token });
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
    process.stderr.write(
      `palisade-agent: unexpected failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
