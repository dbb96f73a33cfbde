import { ExitCode } from "../cli/errors.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { findEngine } from "../engine-address.js";
import { connectToEngine } from "../engine/connect.js";
import type { EngineConnection } from "../engine/connect.js";
import { stopEngine } from "../engine/stop.js";
import { describeStarted, restartEngine } from "../engine/restart.js";
import { driftLines, setupDrift } from "../engine/setup-drift.js";
import { formatStatus, statusToJson } from "../format/status.js";
import { hintCommand, intOption, pathsOf, flag, startOptions, workspaceOf } from "./common.js";
import { runEngineForeground } from "./engine-foreground.js";
import { explainFailedStart, refuseInvalidConfig } from "./preflight.js";
import { prestartEngine } from "../engine/spawn.js";

export async function engineStart(ctx: CommandContext): Promise<number> {
  const paths = pathsOf(ctx);
  if (flag(ctx, "foreground"))
    return runEngineForeground(ctx.io, { paths, workspace: workspaceOf(ctx), demo: flag(ctx, "demo") });
  const running = await findEngine(paths);
  if (running) {
    println(ctx.io.stdout, `The Engine is already running (pid ${running.info.pid}, ${running.address}).`);
    const drift = await setupDrift(paths, ctx.io.env, running.info);
    if (drift) for (const line of driftLines(drift, hintCommand(ctx, "engine restart"))) println(ctx.io.stderr, line);
    return ExitCode.OK;
  }
  const demo = flag(ctx, "demo");
  const engineArgs = demo ? ["--demo"] : [];
  if (!demo) await refuseInvalidConfig(ctx);
  const starting = await prestartEngine(paths, { ...startOptions(ctx), start: true, engineArgs });
  let conn: EngineConnection;
  try {
    conn = await connectToEngine(paths, { ...startOptions(ctx), start: true, starting, engineArgs });
  } catch (err) {
    // An Engine that refused its config: the problems in full (file, path, hint), not the last
    // lines of engine.log.
    if (!demo) await explainFailedStart(ctx, starting);
    throw err;
  }
  println(
    ctx.io.stdout,
    `Engine started: pid ${conn.endpoint.info.pid}, ${conn.endpoint.address}, log ${paths.logFile}`,
  );
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
  await stopEngine(paths, running, 10_000);
  println(ctx.io.stdout, `Engine stopped (pid ${running.info.pid}).`);
  return ExitCode.OK;
}

/**
 * Stops the running Engine gracefully and starts one with the current config and environment.
 * The config is checked first: an invalid one leaves the running Engine alone.
 */
export async function engineRestart(ctx: CommandContext): Promise<number> {
  const paths = pathsOf(ctx);
  const deadlineS = intOption(ctx, "deadline", 10);
  const running = await findEngine(paths);
  if (!running) println(ctx.io.stdout, `No Engine was running for ${paths.dataDir}; starting one.`);
  const { conn, demo } = await restartEngine(paths, {
    env: ctx.io.env,
    workspace: workspaceOf(ctx),
    deadlineMs: deadlineS * 1000,
    demo: flag(ctx, "demo"),
    hint: (words) => hintCommand(ctx, words),
    onProgress: (line) => println(ctx.io.stderr, line),
    onStopped: (pid) => println(ctx.io.stdout, `Engine stopped (pid ${pid}); its sessions are kept.`),
  });
  println(
    ctx.io.stdout,
    `Engine started: ${describeStarted(conn, demo)}, ${conn.endpoint.address}, log ${paths.logFile}`,
  );
  conn.close();
  return ExitCode.OK;
}

export async function engineStatus(ctx: CommandContext): Promise<number> {
  const paths = pathsOf(ctx);
  const running = await findEngine(paths);
  if (!running) {
    if (flag(ctx, "json")) println(ctx.io.stdout, JSON.stringify({ running: false, dataDir: paths.dataDir }));
    else
      println(
        ctx.io.stdout,
        `No Engine is running for ${paths.dataDir}. Start one with '${hintCommand(ctx, "engine start")}'.`,
      );
    return 3;
  }
  const conn = await connectToEngine(paths);
  try {
    // What this shell and config would start differently (engine restart applies it).
    const drift = await setupDrift(paths, ctx.io.env, running.info);
    if (flag(ctx, "json")) {
      const setup = {
        setupChanges: drift?.changes ?? [],
        ...(drift?.problems ? { configProblems: drift.problems } : {}),
      };
      println(
        ctx.io.stdout,
        JSON.stringify({
          running: true,
          pid: running.info.pid,
          address: running.address,
          ...statusToJson(conn.status),
          ...setup,
        }),
      );
    } else {
      ctx.io.stdout.write(formatStatus(conn.status, running));
      if (drift) for (const line of driftLines(drift, hintCommand(ctx, "engine restart"))) println(ctx.io.stdout, line);
    }
  } finally {
    conn.close();
  }
  return ExitCode.OK;
}
