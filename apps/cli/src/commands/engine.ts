import { CliError, ExitCode } from "../cli/errors.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { findEngine, isProcessAlive } from "../engine-address.js";
import { connectToEngine } from "../engine/connect.js";
import { describeRpcError } from "../engine/errors.js";
import { formatStatus, statusToJson } from "../format/status.js";
import { hintCommand, pathsOf, flag, startOptions, workspaceOf } from "./common.js";
import { runEngineForeground } from "./engine-foreground.js";

export async function engineStart(ctx: CommandContext): Promise<number> {
  const paths = pathsOf(ctx);
  if (flag(ctx, "foreground")) return runEngineForeground(ctx.io, { paths, workspace: workspaceOf(ctx), demo: flag(ctx, "demo") });
  const running = await findEngine(paths);
  if (running) {
    println(ctx.io.stdout, `The Engine is already running (pid ${running.info.pid}, ${running.address}).`);
    return ExitCode.OK;
  }
  const conn = await connectToEngine(paths, { ...startOptions(ctx), engineArgs: flag(ctx, "demo") ? ["--demo"] : [] });
  println(ctx.io.stdout, `Engine started: pid ${conn.endpoint.info.pid}, ${conn.endpoint.address}, log ${paths.logFile}`);
  conn.close();
  return ExitCode.OK;
}

export async function engineStop(ctx: CommandContext): Promise<number> {
  const paths = pathsOf(ctx);
  const running = await findEngine(paths);
  if (!running) {
    println(ctx.io.stdout, `No Engine is running for ${paths.dataDir}.`);
    return ExitCode.OK;
  }
  const conn = await connectToEngine(paths);
  try {
    const res = await conn.client.shutdown({ deadlineMs: 10_000 });
    if (!res.accepted) throw new CliError("the Engine refused to shut down", { hint: `send it SIGTERM: kill ${running.info.pid}` });
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`could not ask the Engine to stop: ${describeRpcError(err)}`, { hint: `send it SIGTERM: kill ${running.info.pid}` });
  } finally {
    conn.close();
  }
  const deadline = Date.now() + 15_000;
  while (isProcessAlive(running.info.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (isProcessAlive(running.info.pid)) {
    throw new CliError(`the Engine (pid ${running.info.pid}) is still running 15 s after Shutdown`, { hint: `kill ${running.info.pid}` });
  }
  println(ctx.io.stdout, `Engine stopped (pid ${running.info.pid}).`);
  return ExitCode.OK;
}

export async function engineStatus(ctx: CommandContext): Promise<number> {
  const paths = pathsOf(ctx);
  const running = await findEngine(paths);
  if (!running) {
    if (flag(ctx, "json")) println(ctx.io.stdout, JSON.stringify({ running: false, dataDir: paths.dataDir }));
    else println(ctx.io.stdout, `No Engine is running for ${paths.dataDir}. Start one with '${hintCommand(ctx, "engine start")}'.`);
    return 3;
  }
  const conn = await connectToEngine(paths);
  try {
    if (flag(ctx, "json")) println(ctx.io.stdout, JSON.stringify({ running: true, pid: running.info.pid, address: running.address, ...statusToJson(conn.status) }));
    else ctx.io.stdout.write(formatStatus(conn.status, running));
  } finally {
    conn.close();
  }
  return ExitCode.OK;
}
