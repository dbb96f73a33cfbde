// Stopping an Engine from a client, gracefully over Shutdown.
import { CliError } from "../cli/errors.js";
import type { EngineEndpoint, PalisadePaths } from "../engine-address.js";
import { connectToEngine, waitGone } from "./connect.js";
import { describeRpcError } from "./errors.js";

/**
 * Asks the Engine to shut down (running turns get `deadlineMs` to finish, then are cancelled and
 * saved as far as they got) and waits until its process is gone.
 */
export async function stopEngine(paths: PalisadePaths, running: EngineEndpoint, deadlineMs: number): Promise<void> {
  const conn = await connectToEngine(paths);
  try {
    const res = await conn.client.shutdown({ deadlineMs });
    if (!res.accepted) throw new CliError("the Engine refused to shut down", { hint: `send it SIGTERM: kill ${running.info.pid}` });
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`could not ask the Engine to stop: ${describeRpcError(err)}`, { hint: `send it SIGTERM: kill ${running.info.pid}` });
  } finally {
    conn.close();
  }
  const waitMs = deadlineMs + 15_000;
  if (!(await waitGone(running.info.pid, waitMs))) {
    throw new CliError(`the Engine (pid ${running.info.pid}) is still running ${Math.round(waitMs / 1000)} s after Shutdown`, { hint: `kill ${running.info.pid}` });
  }
}
