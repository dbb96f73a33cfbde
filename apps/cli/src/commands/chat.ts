import { createElement } from "react";
import { ExitCode } from "../cli/errors.js";
import type { CommandContext } from "../cli/spec.js";
import { connectToEngine } from "../engine/connect.js";
import type { EngineConnection } from "../engine/connect.js";
import { CliError } from "../cli/errors.js";
import { flag, pathsOf, workspaceOf } from "./common.js";
import { DELEGATES, loadDelegate } from "./delegates.js";

export async function runChatCommand(ctx: CommandContext): Promise<number> {
  const paths = pathsOf(ctx);
  const demo = flag(ctx, "demo");
  const engineAvailable = (await loadDelegate(DELEGATES.engine)) !== undefined;
  let conn: EngineConnection | undefined;
  let reason: string | undefined;
  if (engineAvailable) {
    try {
      conn = await connectToEngine(paths, { start: true, workspace: workspaceOf(ctx), engineArgs: demo ? ["--demo"] : [], env: ctx.io.env });
    } catch (err) {
      reason = err instanceof CliError ? err.message : String(err);
    }
  } else {
    reason = "The Engine is not part of this build yet, so there is nothing to chat with.";
  }
  if (!conn || !conn.status.modelConfigured) {
    const { render } = await import("ink");
    const { SetupApp } = await import("../tui/components/SetupApp.js");
    const chosen: { choice: "quit" | "demo" } = { choice: "quit" };
    const app = render(
      createElement(SetupApp, { configFile: paths.configFile, reason, demoAvailable: engineAvailable, onChoice: (c) => (chosen.choice = c) }),
      { exitOnCtrlC: false },
    );
    await app.waitUntilExit();
    conn?.close();
    if (chosen.choice === "demo") return runChatCommand({ ...ctx, options: { ...ctx.options, demo: true } });
    return ExitCode.OK;
  }
  conn.close();
  return ExitCode.OK;
}
