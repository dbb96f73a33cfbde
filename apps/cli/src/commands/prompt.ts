import type { CliIo } from "../cli/io.js";

/** Reads one key press from a TTY stdin (raw mode), echoing nothing; resolves with the key. */
export function readKey(io: CliIo, signal?: AbortSignal): Promise<string> {
  const stdin = io.stdin as NodeJS.ReadStream;
  return new Promise((resolve) => {
    const raw = typeof stdin.setRawMode === "function";
    if (raw) stdin.setRawMode(true);
    stdin.resume();
    const done = (key: string): void => {
      stdin.off("data", onData);
      signal?.removeEventListener("abort", onAbort);
      if (raw) stdin.setRawMode(false);
      stdin.pause();
      resolve(key);
    };
    const onData = (d: Buffer): void => done(d.toString("utf8"));
    const onAbort = (): void => done("");
    stdin.on("data", onData);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export async function confirm(io: CliIo, question: string): Promise<boolean> {
  io.stderr.write(question);
  const key = await readKey(io);
  io.stderr.write("\n");
  return key.toLowerCase() === "y";
}
