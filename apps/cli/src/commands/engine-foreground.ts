import type { CliIo } from "../cli/io.js";
import { println } from "../cli/io.js";
import { CliError, ExitCode } from "../cli/errors.js";
import { removeEngineInfo } from "@palisade/config/discovery";
import { ensureDataDir, findEngine, readEngineInfo } from "../engine-address.js";
import type { PalisadePaths } from "../engine-address.js";
import { ENGINE_LOCKED_EXIT, tryLockEngine } from "../engine/lock.js";
import { startFailure } from "../engine/start-errors.js";
import type { startEngine } from "@palisade/engine";

/** The Engine's `startEngine`, loaded on first use so other commands start fast. */
export async function loadStartEngine(): Promise<typeof startEngine> {
  return (await import("@palisade/engine")).startEngine;
}

export interface ForegroundOptions {
  paths: PalisadePaths;
  workspace: string;
  demo: boolean;
}

/**
 * Runs the Engine in this process until SIGINT/SIGTERM or a Shutdown RPC. It first takes the data
 * directory's lock: when another Engine holds it (running, or starting at the same moment), this
 * one says so and exits with ENGINE_LOCKED_EXIT; the client that started it connects to that one.
 */
export async function runEngineForeground(io: CliIo, o: ForegroundOptions): Promise<number> {
  await ensureDataDir(o.paths);
  const lock = await tryLockEngine(o.paths.dataDir);
  if (!lock) {
    const other = await findEngine(o.paths).catch(() => undefined);
    throw new CliError(
      `another Engine holds ${o.paths.dataDir}${other ? ` (pid ${other.info.pid}, ${other.address})` : " (it is starting)"}; one Engine serves a data directory`,
      {
        exitCode: ENGINE_LOCKED_EXIT,
        hint: "clients connect to the running one; stop it with 'palisade engine stop' to start another",
      },
    );
  }
  try {
    // holding the lock proves that no other Engine serves this directory: an engine.json left by
    // one that was killed (its pid possibly reused since) is stale
    const stale = await readEngineInfo(o.paths);
    if (stale && stale.pid !== process.pid) await removeEngineInfo(o.paths.dataDir, stale.pid);
    return await runLocked(io, o);
  } finally {
    lock.release();
  }
}

async function runLocked(io: CliIo, o: ForegroundOptions): Promise<number> {
  // A signal during start-up (the client that spawned it gave up) stops it once it is up, cleanly.
  let stopAsked = false;
  let stop = (): void => void (stopAsked = true);
  const onSignal = (): void => stop();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    return await runUntilStopped(io, o, (fn) => {
      stop = fn;
      if (stopAsked) fn();
    });
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

async function runUntilStopped(
  io: CliIo,
  o: ForegroundOptions,
  onStarted: (stop: () => void) => void,
): Promise<number> {
  const start = await loadStartEngine();
  let env: NodeJS.ProcessEnv = { ...(io.env as NodeJS.ProcessEnv) };
  let demoModel: { close(): Promise<void> } | undefined;
  if (o.demo) {
    const { startDemoModel } = await import("../demo/demo-model.js");
    const model = await startDemoModel();
    demoModel = model;
    env = { ...env, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "demo", PALISADE_MODEL: "palisade-demo" };
    println(io.stderr, `demo: scripted model at ${model.baseURL} (no real LLM is used)`);
  }
  // engine.log is read later: every line says when.
  const log = (line: string): void => println(io.stderr, `${new Date().toISOString()} ${line}`);
  let engine: Awaited<ReturnType<typeof start>>;
  try {
    engine = await start({
      dataDir: o.paths.dataDir,
      configPath: o.paths.configFile,
      workspace: o.workspace,
      env,
      log,
      demo: o.demo,
    });
  } catch (err) {
    await demoModel?.close();
    throw startFailure(err, o.paths);
  }
  println(io.stderr, `Engine ready at ${engine.address} (pid ${process.pid}, data ${o.paths.dataDir})`);
  onStarted(() => void engine.stop(10_000));
  try {
    await engine.stopped;
  } finally {
    await demoModel?.close();
  }
  return ExitCode.OK;
}
