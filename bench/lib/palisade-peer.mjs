// What bench/peers.mjs and bench/saturation.mjs share: their helper processes (bench/lib/*.mjs,
// of this checkout or of another built tree) and a Palisade turn through the Engine that
// bench/lib/real-engine-child.mjs runs.
import { fork } from "node:child_process";
import { join, resolve } from "node:path";
import { createClient } from "@palisade/protocol";
import { ClientService, PipelineEventType } from "@palisade/protocol/pipeline";

/** Forks bench/lib/<file> (of `root` when given); `first` is its first IPC message. */
export function child(file, args, env = {}, root = undefined) {
  const proc = fork(root ? join(resolve(root), "bench", "lib", file) : new URL(`./${file}`, import.meta.url), args, { stdio: ["ignore", "ignore", "inherit", "ipc"], env: { ...process.env, ...env } });
  const first = new Promise((res, rej) => {
    proc.once("message", res);
    proc.once("exit", (code) => rej(new Error(`bench/lib/${file} exited (${code}) before it answered`)));
  });
  const stop = () => new Promise((res) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return res();
    proc.once("exit", res);
    if (proc.connected) proc.disconnect();
    else proc.kill();
  });
  return { proc, first, stop };
}

/**
 * A client of the Engine at `address`: `turn(sessionId)` makes one turn ("read x.txt": the model
 * calls files__read_file, then answers) in that session, or in a new one when it is undefined,
 * and resolves to the session's id.
 */
export function palisadeTurns(address, token) {
  const client = createClient(ClientService, address, { bearerToken: token });
  const turn = async (sessionId) => {
    let last;
    let id = sessionId;
    for await (const ev of client.sendMessage({ content: "read x.txt", sessionId: id ?? "" })) {
      last = ev;
      if (!id && ev.sessionId) id = ev.sessionId;
    }
    if (last?.eventType !== PipelineEventType.RESPONSE_COMPLETE) throw new Error(`palisade turn failed: ${last?.pipelineError?.message ?? "no RESPONSE_COMPLETE"}`);
    return id;
  };
  return { turn, close: () => client.close() };
}
