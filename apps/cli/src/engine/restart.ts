// Restarting the Engine with the current config and environment (`palisade engine restart`, the
// chat's /restart): the config is read first, so an invalid one leaves the running Engine alone.
import { CliError } from "../cli/errors.js";
import { checkStartConfig } from "../commands/preflight.js";
import { findEngine } from "../engine-address.js";
import type { PalisadePaths } from "../engine-address.js";
import { connectToEngine } from "./connect.js";
import type { ConnectOptions, EngineConnection } from "./connect.js";
import { stopEngine } from "./stop.js";

export interface RestartOptions extends Pick<ConnectOptions, "workspace" | "onProgress" | "hint"> {
  env: Record<string, string | undefined>;
  /** How long running turns may take to finish before they are cancelled (and saved as far as they got). */
  deadlineMs: number;
  /** Start the new one with the demo model (kept anyway when the running one is a demo). */
  demo?: boolean;
  /** Called once the old Engine is gone. */
  onStopped?: (pid: number) => void;
}

export interface Restarted {
  /** The Engine that was stopped; undefined when none was running. */
  stoppedPid: number | undefined;
  conn: EngineConnection;
  demo: boolean;
}

export async function restartEngine(paths: PalisadePaths, o: RestartOptions): Promise<Restarted> {
  // Everything a start would refuse (the config, the policy, declared tool semantics) is checked
  // before the running Engine is stopped.
  const { ConfigError } = await import("@palisade/config");
  try {
    await checkStartConfig(paths.configFile, o.env, o.workspace ?? process.cwd());
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const again = o.hint ? o.hint("engine restart") : "palisade engine restart";
    throw new CliError(`${err.message}\nThe running Engine (if any) was left as it is.`, {
      hint: `fix ${paths.configFile} (see docs/configuration.md; tool semantics: docs/policy.md), then run '${again}' again`,
    });
  }
  const running = await findEngine(paths);
  const demo = o.demo === true || running?.info.setup?.demo === true;
  if (running) {
    o.onProgress?.(
      `stopping the Engine (pid ${running.info.pid}); running turns get ${Math.round(o.deadlineMs / 1000)} s to finish…`,
    );
    await stopEngine(paths, running, o.deadlineMs);
    o.onStopped?.(running.info.pid);
  }
  const conn = await connectToEngine(paths, {
    start: true,
    env: o.env,
    engineArgs: demo ? ["--demo"] : [],
    ...(o.workspace ? { workspace: o.workspace } : {}),
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    ...(o.hint ? { hint: o.hint } : {}),
  });
  return { stoppedPid: running?.info.pid, conn, demo };
}

/** "pid 123, model m at http://…": what a restarted Engine runs with. */
export function describeStarted(conn: EngineConnection, demo: boolean): string {
  const s = conn.status;
  return `pid ${conn.endpoint.info.pid}, model ${s.modelConfigured ? s.model : "not configured"}${s.baseUrl ? ` at ${s.baseUrl}` : ""}${demo ? " (demo)" : ""}`;
}
