// Stopping an Engine from a client: Shutdown over gRPC, which does not need the Engine to be
// healthy (an Engine whose database is damaged may fail GetStatus and still stop cleanly); when
// even that fails, SIGTERM to the process that holds the data directory's lock.
import { CliError } from "../cli/errors.js";
import type { EngineEndpoint, PalisadePaths } from "../engine-address.js";
import { openClient, waitGone } from "./connect.js";
import { describeRpcError } from "./errors.js";
import { engineLockHolder } from "./lock.js";

/**
 * Asks the Engine to shut down (running turns get `deadlineMs` to finish, then are cancelled and
 * saved as far as they got) and waits until its process is gone.
 */
export async function stopEngine(paths: PalisadePaths, running: EngineEndpoint, deadlineMs: number): Promise<void> {
  const { pid } = running.info;
  const client = openClient(running);
  let asked: string | undefined;
  try {
    const res = await client.shutdown({ deadlineMs }, { timeoutMs: 10_000 });
    if (!res.accepted) asked = "it refused to shut down";
  } catch (err) {
    asked = `could not ask it to stop: ${describeRpcError(err)}`;
  } finally {
    client.close();
  }
  if (asked !== undefined) {
    // the pid in engine.json is signalled only when it is the process holding the data directory's lock
    if (engineLockHolder(paths.dataDir) !== pid) {
      throw new CliError(`the Engine (pid ${pid}) did not stop: ${asked}`, {
        hint: `end it with: kill ${pid} (see ${paths.logFile})`,
      });
    }
    process.kill(pid, "SIGTERM");
  }
  const waitMs = deadlineMs + 15_000;
  if (!(await waitGone(pid, waitMs))) {
    throw new CliError(
      `the Engine (pid ${pid}) is still running ${Math.round(waitMs / 1000)} s after it was asked to stop`,
      { hint: `end it with: kill -9 ${pid} (see ${paths.logFile})` },
    );
  }
}
