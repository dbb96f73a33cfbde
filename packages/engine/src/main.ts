#!/usr/bin/env node
// `palisade-engine [--config FILE] [--data-dir DIR] [--listen ADDR] [--workspace DIR] [--allow-unsandboxed]`
// Runs the Engine in the foreground until SIGINT/SIGTERM or a Shutdown RPC.
import { parseArgs } from "node:util";
import {
  ensureDataDir,
  readEngineInfo,
  removeEngineInfo,
  resolveDataDir,
  engineLockHolder,
  tryLockEngine,
  ConfigError,
  PrivatePathError,
} from "@palisade/config";
import { startEngine } from "./engine.js";
import { EngineError } from "./errors.js";

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      config: { type: "string" },
      "data-dir": { type: "string" },
      listen: { type: "string" },
      workspace: { type: "string" },
      "allow-unsandboxed": { type: "boolean" },
    },
    strict: true,
  });
  // one Engine per data directory: the lock first, before the database or the socket
  const dataDir = resolveDataDir(values["data-dir"] ? { dataDir: values["data-dir"] } : {});
  try {
    await ensureDataDir(dataDir);
  } catch (err) {
    if (!(err instanceof PrivatePathError)) throw err;
    process.stderr.write(`palisade-engine: ${err.message}\n`);
    return 1;
  }
  const lock = await tryLockEngine(dataDir);
  if (!lock) {
    process.stderr.write(
      `palisade-engine: another Engine holds ${dataDir} (pid ${String(engineLockHolder(dataDir) ?? "?")}); one Engine serves a data directory\n`,
    );
    return 75;
  }
  // holding the lock proves an engine.json of another pid stale (an Engine that was killed)
  const stale = await readEngineInfo(dataDir);
  if (stale && stale.pid !== process.pid) await removeEngineInfo(dataDir, stale.pid);
  let engine;
  try {
    engine = await startEngine({
      ...(values.config ? { configPath: values.config } : {}),
      ...(values["data-dir"] ? { dataDir: values["data-dir"] } : {}),
      ...(values.listen ? { listen: values.listen } : {}),
      ...(values.workspace ? { workspace: values.workspace } : {}),
      ...(values["allow-unsandboxed"] ? { allowUnsandboxed: true } : {}),
    });
  } catch (err) {
    process.stderr.write(
      `palisade-engine: ${err instanceof EngineError || err instanceof ConfigError || err instanceof PrivatePathError ? err.message : ((err as Error).stack ?? String(err))}\n`,
    );
    return 1;
  }
  const onSignal = (): void => void engine.stop();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  process.stdout.write(`${JSON.stringify({ ready: true, address: engine.address, pid: process.pid })}\n`);
  await engine.stopped;
  lock.release();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`palisade-engine: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
