#!/usr/bin/env node
// The sub-agent process entry: started by the Engine as compiled JS under the Agent's sandbox.
import { readSpawnToken } from "@palisade/agent";
import { SubAgentConfigError, readSubAgentConfig } from "./config.js";
import { runSubAgent } from "./run.js";

async function main(): Promise<number> {
  let config;
  try {
    // No token (stdin not from an Engine) is one more problem in the list below.
    const token = await readSpawnToken(process.stdin, () => {
      process.stderr.write("palisade-subagent: the Engine is gone (its pipe on stdin closed); exiting\n");
      process.exit(1);
    }).catch(() => "");
    config = readSubAgentConfig(process.env, { token });
  } catch (err) {
    if (err instanceof SubAgentConfigError) {
      process.stderr.write(`palisade-subagent: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const stop = new AbortController();
  process.once("SIGTERM", () => stop.abort());
  const exit = await runSubAgent({ config, signal: stop.signal });
  if (exit.code !== 0) process.stderr.write(`palisade-subagent: ${exit.reason}\n`);
  return exit.code;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `palisade-subagent: unexpected failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
