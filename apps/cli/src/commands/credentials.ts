// `palisade capability credentials set|list|delete`: per-user values in <data dir>/credentials.json
// (0600). A value is read from stdin or typed without echo, never taken from argv (visible in ps),
// and never printed.
import { join } from "node:path";
import { CliError, ExitCode, UsageError } from "../cli/errors.js";
import type { CliIo } from "../cli/io.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { hintCommand, pathsOf, stringOption } from "./common.js";

async function store(ctx: CommandContext) {
  const { UserCredentialStore } = await import("@palisade/capabilities");
  return new UserCredentialStore(join(pathsOf(ctx).dataDir, "credentials.json"));
}

const userOf = (ctx: CommandContext): string => stringOption(ctx, "user") ?? "local";

/** Reads a line typed in the terminal without showing it. */
function readHidden(io: CliIo, prompt: string): Promise<string> {
  const stdin = io.stdin as NodeJS.ReadStream;
  io.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let value = "";
    stdin.setRawMode(true);
    stdin.resume();
    const finish = (err?: Error): void => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      io.stderr.write("\n");
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (d: Buffer): void => {
      for (const ch of d.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return finish();
        if (ch === "\u0003")
          return finish(new CliError("cancelled; nothing was stored", { exitCode: ExitCode.INTERRUPTED }));
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on("data", onData);
  });
}

async function readAll(io: CliIo): Promise<string> {
  let text = "";
  for await (const chunk of io.stdin) text += typeof chunk === "string" ? chunk : (chunk as Buffer).toString("utf8");
  return text.replace(/\r?\n$/, "");
}

/** A secret from stdin, or typed without echo when stdin is a terminal. */
export function readSecret(io: CliIo, prompt: string): Promise<string> {
  return io.stdin.isTTY ? readHidden(io, prompt) : readAll(io);
}

export async function credentialsSet(ctx: CommandContext): Promise<number> {
  const [capability, name] = ctx.positionals as [string, string];
  const user = userOf(ctx);
  const value = await readSecret(ctx.io, `Value of ${capability} ${name} for user "${user}" (not shown): `);
  if (value === "")
    throw new UsageError(
      "the value is empty; nothing was stored",
      `pipe it in: printf %s "$VALUE" | ${hintCommand(ctx, `capability credentials set ${capability} ${name}`)}`,
    );
  const s = await store(ctx);
  await s.set(user, capability, name, value);
  println(
    ctx.io.stdout,
    `stored ${capability} ${name} for user "${user}" in ${s.file}; a running Engine uses it from the next call`,
  );
  return ExitCode.OK;
}

export async function credentialsList(ctx: CommandContext): Promise<number> {
  const user = userOf(ctx);
  const s = await store(ctx);
  const names = await s.names(user);
  const lines = Object.entries(names).flatMap(([cap, list]) => list.map((n) => `${cap}  ${n}`));
  println(
    ctx.io.stdout,
    lines.length > 0 ? lines.join("\n") : `No credentials stored for user "${user}" in ${s.file}.`,
  );
  return ExitCode.OK;
}

export async function credentialsDelete(ctx: CommandContext): Promise<number> {
  const [capability, name] = ctx.positionals as [string, string];
  const user = userOf(ctx);
  const s = await store(ctx);
  if (!(await s.delete(user, capability, name))) {
    throw new CliError(`no ${capability} ${name} is stored for user "${user}"`, {
      hint: `see '${hintCommand(ctx, "capability credentials list")}'`,
    });
  }
  println(ctx.io.stdout, `Deleted ${capability} ${name} for user "${user}".`);
  return ExitCode.OK;
}
