import type { Readable, Writable } from "node:stream";

/** The process edges a command may touch; tests pass their own. */
export interface CliIo {
  stdout: Writable & { isTTY?: boolean; columns?: number; rows?: number };
  stderr: Writable;
  stdin: Readable & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
}

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() };
}

/** Writes a line to a stream (no trailing newline needed). */
export function println(stream: Writable, text = ""): void {
  stream.write(`${text}\n`);
}
