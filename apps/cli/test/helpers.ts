import { PassThrough } from "node:stream";
import type { CliIo } from "../src/cli/io.js";

export interface CapturedIo extends CliIo {
  out(): string;
  err(): string;
}

/** A CliIo whose output is captured; not a TTY unless asked. */
export function captureIo(env: Record<string, string | undefined> = {}, cwd = process.cwd()): CapturedIo {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  stderr.on("data", (d: Buffer) => (err += d.toString()));
  return { stdout, stderr, stdin: new PassThrough(), env, cwd, out: () => out, err: () => err };
}
