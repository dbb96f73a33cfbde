import type { CliIo } from "../cli/io.js";
import { println } from "../cli/io.js";
import { CliError, ExitCode } from "../cli/errors.js";
import type { PalisadePaths } from "../engine-address.js";

/** What `palisade engine start --foreground` needs from @palisade/engine (loaded lazily). */
interface RunningEngineLike {
  address: string;
  stop(deadlineMs?: number): Promise<void>;
  readonly stopped: Promise<void>;
}
type StartEngine = (options: {
  dataDir: string;
  configPath: string;
  workspace?: string;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}) => Promise<RunningEngineLike>;

async function importOptional(specifier: string): Promise<Record<string, unknown> | undefined> {
  try {
    return (await import(specifier)) as Record<string, unknown>;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND" || code === "ERR_PACKAGE_PATH_NOT_EXPORTED") return undefined;
    throw err;
  }
}

/** The Engine's `startEngine`, or undefined when this build has no Engine. */
export async function loadStartEngine(): Promise<StartEngine | undefined> {
  const name = "@palisade/engine";
  const mod = await importOptional(name);
  return typeof mod?.startEngine === "function" ? (mod.startEngine as StartEngine) : undefined;
}

export interface ForegroundOptions {
  paths: PalisadePaths;
  workspace: string;
  demo: boolean;
}

/** Runs the Engine in this process until SIGINT/SIGTERM or a Shutdown RPC. */
export async function runEngineForeground(io: CliIo, o: ForegroundOptions): Promise<number> {
  const startEngine = await loadStartEngine();
  if (!startEngine) {
    throw new CliError("this build has no Engine (@palisade/engine is missing)", { exitCode: ExitCode.USAGE, hint: "run 'make build' in the repository" });
  }
  let env: NodeJS.ProcessEnv = { ...(io.env as NodeJS.ProcessEnv) };
  let demoModel: { close(): Promise<void> } | undefined;
  if (o.demo) {
    const { startDemoModel } = await import("../demo/demo-model.js");
    const model = await startDemoModel();
    demoModel = model;
    env = { ...env, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "demo", PALISADE_MODEL: "palisade-demo" };
    println(io.stderr, `demo: scripted model at ${model.baseURL} (no real LLM is used)`);
  }
  const log = (line: string): void => println(io.stderr, line);
  let engine: RunningEngineLike;
  try {
    engine = await startEngine({ dataDir: o.paths.dataDir, configPath: o.paths.configFile, workspace: o.workspace, env, log });
  } catch (err) {
    await demoModel?.close();
    throw new CliError(`the Engine could not start: ${err instanceof Error ? err.message : String(err)}`, { hint: `check ${o.paths.configFile}` });
  }
  println(io.stderr, `Engine ready at ${engine.address} (pid ${process.pid}, data ${o.paths.dataDir})`);
  const stop = (): void => void engine.stop(10_000);
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await engine.stopped;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    await demoModel?.close();
  }
  return ExitCode.OK;
}
