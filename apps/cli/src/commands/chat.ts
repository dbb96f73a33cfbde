import { createElement } from "react";
import { CliError, ExitCode, UsageError } from "../cli/errors.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { connectToEngine, killSpawnedEngine } from "../engine/connect.js";
import { stopEngine } from "../engine/stop.js";
import { describeStarted, restartEngine } from "../engine/restart.js";
import { driftLines, setupDrift } from "../engine/setup-drift.js";
import type { EngineConnection } from "../engine/connect.js";
import { join } from "node:path";
import { findEngine, resolvePaths } from "../engine-address.js";
import { flag, hintCommand, pathsOf, startOptions, stringOption, workspaceOf } from "./common.js";
import { explainFailedStart, refuseInvalidConfig } from "./preflight.js";
import { prestartEngine } from "../engine/spawn.js";
import { shownLine } from "../format/terminal-text.js";

async function showSetup(
  ctx: CommandContext,
  configFile: string,
  reason: string | undefined,
  demoAvailable: boolean,
): Promise<"quit" | "demo"> {
  const { render } = await import("ink");
  const { SetupApp } = await import("../tui/components/SetupApp.js");
  const chosen: { choice: "quit" | "demo" } = { choice: "quit" };
  const app = render(
    createElement(SetupApp, { configFile, reason, demoAvailable, onChoice: (c) => (chosen.choice = c) }),
    {
      stdout: ctx.io.stdout as NodeJS.WriteStream,
      stdin: ctx.io.stdin as NodeJS.ReadStream,
      exitOnCtrlC: false,
      // Nothing else writes while this screen shows; the console stays as it is.
      patchConsole: false,
    },
  );
  await app.waitUntilExit();
  return chosen.choice;
}

export async function runChatCommand(ctx: CommandContext): Promise<number> {
  if (!ctx.io.stdin.isTTY || !ctx.io.stdout.isTTY) {
    throw new CliError("palisade chat needs a terminal", {
      exitCode: ExitCode.USAGE,
      hint: `for scripts use: ${hintCommand(ctx, 'run "<prompt>" [--json]')}`,
    });
  }
  const session = ctx.positionals[0];
  if (session !== undefined && !flag(ctx, "resume"))
    throw new UsageError(
      `unexpected argument '${session}'`,
      `to continue a session: ${hintCommand(ctx, `chat --resume ${session}`)}`,
    );
  const resume = flag(ctx, "resume") ? (session ?? true) : undefined;
  const demo = flag(ctx, "demo");
  // The demo gets its own data directory (and Engine), so it never mixes with real sessions.
  const base = pathsOf(ctx);
  const paths = demo
    ? resolvePaths({ dataDir: join(base.dataDir, "demo"), configFile: base.configFile }, ctx.io.env)
    : base;
  const ephemeral = flag(ctx, "ephemeral") || demo;
  const workspace = workspaceOf(ctx);
  // Ctrl+C while the Engine starts (before the chat owns the keyboard) stops the Engine it started.
  const interrupted = new AbortController();
  const onSigint = (): void => interrupted.abort();
  process.once("SIGINT", onSigint);
  const running = await findEngine(paths);
  const engineArgs = demo ? ["--demo"] : [];
  // An invalid config is refused with its problems (file, path) before any Engine starts with it.
  if (!running && !demo) await refuseInvalidConfig(ctx, workspace);
  const starting = running
    ? undefined
    : await prestartEngine(paths, { ...startOptions(ctx), start: true, workspace, engineArgs });
  // The chat's screen (ink, React: a few hundred ms to load) loads while the Engine answers or starts.
  const tui = import("../tui/run-chat.js");
  tui.catch(() => undefined); // awaited below; a setup screen instead leaves it unused
  let conn: EngineConnection | undefined;
  let reason: string | undefined;
  const restartCommand = hintCommand(ctx, "engine restart");
  let notice: string[] | undefined;
  try {
    conn = await connectToEngine(paths, {
      ...startOptions(ctx),
      start: !running,
      starting,
      workspace,
      engineArgs,
      signal: interrupted.signal,
      onSetupDrift: (drift) => (notice = driftLines(drift, restartCommand)),
    });
  } catch (err) {
    if (interrupted.signal.aborted) {
      println(ctx.io.stderr, err instanceof CliError ? err.message : String(err));
      return ExitCode.INTERRUPTED;
    }
    if (!demo) await explainFailedStart(ctx, starting);
    reason = err instanceof CliError ? err.message : String(err);
  } finally {
    process.off("SIGINT", onSigint);
  }
  if (!conn || !conn.status.modelConfigured) {
    // An Engine started just for this screen (it has no model) is of no use once the user leaves it.
    const stopping = conn?.startedHere
      ? stopEngine(paths, conn.endpoint, 2_000).catch(() => killSpawnedEngine(conn.endpoint.info.pid))
      : undefined;
    conn?.close();
    // A running Engine without a model, while this shell or config now has one: say so.
    const why = notice ? [reason, ...notice].filter(Boolean).join("\n") : reason;
    const choice = await showSetup(ctx, base.configFile, why, true);
    await stopping;
    if (choice === "demo") return runChatCommand({ ...ctx, options: { ...ctx.options, demo: true } });
    return ExitCode.OK;
  }
  const model = stringOption(ctx, "model");
  const unknownModel = model ? await modelNotListed(conn, model) : undefined;
  if (unknownModel) {
    if (conn.startedHere)
      await stopEngine(paths, conn.endpoint, 2_000).catch(() => killSpawnedEngine(conn.endpoint.info.pid));
    conn.close();
    println(ctx.io.stderr, unknownModel);
    return ExitCode.USAGE;
  }
  const { runChatTui } = await tui;
  try {
    const setup = {
      notice,
      check: async (): Promise<string[] | undefined> => {
        const found = await findEngine(paths);
        const drift = found ? await setupDrift(paths, ctx.io.env, found.info) : undefined;
        return drift ? driftLines(drift, restartCommand) : undefined;
      },
      restart: async (): Promise<string> => {
        const r = await restartEngine(paths, {
          env: ctx.io.env,
          workspace,
          deadlineMs: 10_000,
          hint: (words) => hintCommand(ctx, words),
        });
        r.conn.close();
        return `Engine restarted: ${describeStarted(r.conn, r.demo)}`;
      },
    };
    await runChatTui({
      io: ctx.io,
      paths,
      conn,
      workspace,
      demo,
      otr: flag(ctx, "otr"),
      model,
      resume,
      setup,
    });
  } finally {
    if (ephemeral && conn.startedHere) {
      const stopper = await connectToEngine(paths).catch(() => undefined);
      await stopper?.client.shutdown({ deadlineMs: 5000 }).catch(() => undefined);
      stopper?.close();
      println(ctx.io.stdout, "Stopped the Engine this chat started (--ephemeral).");
    }
  }
  return ExitCode.OK;
}

/**
 * Why `--model NAME` cannot be used, when the endpoint lists its models (asked by the Engine, which
 * holds the key) and NAME is not among them; undefined when it is, or when the endpoint gave no list.
 */
export async function modelNotListed(conn: EngineConnection, model: string): Promise<string | undefined> {
  const res = await conn.client.listModels({}, { timeoutMs: 15_000 }).catch(() => undefined);
  if (!res?.answered || res.models.length === 0 || res.models.includes(model)) return undefined;
  const shownIds = res.models.slice(0, 20).map((id) => shownLine(id));
  const more = res.models.length > shownIds.length ? `, … (${String(res.models.length - shownIds.length)} more)` : "";
  return `--model ${shownLine(model)}: the model endpoint ${res.baseUrl} does not list it. It lists: ${shownIds.join(", ")}${more}. Give one of those (/models in the chat lists them).`;
}
