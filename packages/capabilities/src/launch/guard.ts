// `node guard.js -- COMMAND ARGS...`: runs a capability server that knows nothing of Palisade
// (Selu's PORT convention) so that it dies with the Engine. The Engine holds this process's
// stdin; when the pipe ends (the Engine stopped or died, even by SIGKILL), the whole process
// group — this guard, the server and anything it spawned — gets SIGTERM, then SIGKILL after
// one second. Signals sent to the group by the Engine reach the server directly; the guard
// then exits as the server did.
import { spawn } from "node:child_process";

const KILL_AFTER_MS = 1000;

const sep = process.argv.indexOf("--");
const [command, ...args] = sep === -1 ? [] : process.argv.slice(sep + 1);
if (!command) {
  process.stderr.write("usage: guard.js -- COMMAND [ARGS...]\n");
  process.exit(2);
}

// The Engine signals the group: the server gets the signal too, and the guard waits for it.
for (const s of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(s, () => undefined);

const killGroup = (signal: NodeJS.Signals): void => {
  try {
    process.kill(-process.pid, signal);
  } catch {
    // not a group leader (run by hand): at least the server
    child.kill(signal);
  }
};

let engineGone = false;
const onEngineGone = (): void => {
  if (engineGone) return;
  engineGone = true;
  // The Engine read our output: writing now fails with EPIPE, which must not end the guard early.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
  process.stderr.write("[palisade] the Engine is gone (its pipe closed): stopping the capability\n");
  killGroup("SIGTERM");
  setTimeout(() => killGroup("SIGKILL"), KILL_AFTER_MS);
};

const child = spawn(command, args, { stdio: ["ignore", "inherit", "inherit"] });
child.once("error", (err) => {
  process.stderr.write(`could not start: ${err.message}\n`);
  process.exit(127);
});
child.once("exit", (code, signal) => {
  // Whatever the server left behind in the group goes with it once the Engine is gone.
  if (engineGone) killGroup("SIGKILL");
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code ?? 1);
});

process.stdin.on("data", () => undefined);
process.stdin.once("end", onEngineGone);
process.stdin.once("close", onEngineGone);
process.stdin.once("error", onEngineGone);
