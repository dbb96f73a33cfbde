// The Agent's (and sub-agents') tie to the Engine's process: the Engine writes the spawn token as
// the first line of the child's stdin and holds the pipe open. So the token is in no environment
// or argument list (both readable through /proc and `ps e`), and end-of-file on stdin means the
// Engine is gone, whatever killed it: the child then exits instead of living on as an orphan.
import type { Readable } from "node:stream";

export const SPAWN_TOKEN_TIMEOUT_MS = 10_000;
const MAX_LINE = 4096;

/**
 * Reads the spawn token (the first line of `input`), then watches `input`: `onParentGone` runs
 * once when it ends or fails after that. Rejects when no line arrives within `timeoutMs` or
 * `input` ends first.
 */
export function readSpawnToken(
  input: Readable,
  onParentGone: () => void,
  timeoutMs = SPAWN_TOKEN_TIMEOUT_MS,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let buffered = "";
    let settled = false;
    let gone = false;
    const settle = (err: Error | undefined, token?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(token ?? "");
    };
    const timer = setTimeout(
      () =>
        settle(
          new Error(
            `no spawn token on stdin within ${String(timeoutMs / 1000)} s: the Engine writes it there when it starts this process`,
          ),
        ),
      timeoutMs,
    );
    timer.unref();
    const parentGone = (): void => {
      if (!settled) {
        settle(
          new Error(
            "stdin closed before the spawn token arrived: start this process from the Engine, which writes the token on its stdin",
          ),
        );
        return;
      }
      if (gone) return;
      gone = true;
      onParentGone();
    };
    input.setEncoding("utf8");
    input.on("data", (chunk: string) => {
      if (settled) return; // nothing but the token is ever sent
      buffered += chunk;
      const nl = buffered.indexOf("\n");
      if (nl >= 0) settle(undefined, buffered.slice(0, nl).trim());
      else if (buffered.length > MAX_LINE)
        settle(new Error(`the first line of stdin is longer than ${String(MAX_LINE)} bytes: not a spawn token`));
      if (settled) buffered = "";
    });
    input.on("end", parentGone);
    input.on("error", parentGone);
    input.resume();
  });
}
