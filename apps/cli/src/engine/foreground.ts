// `palisade [--data-dir D] [--config F] [--workspace W] engine start --foreground [--demo]` as a
// process of its own (engine-main.ts): the paths come resolved from the CLI that spawned it.
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { processIo } from "../cli/io.js";
import { CliError, ExitCode, UsageError } from "../cli/errors.js";
import { println } from "../cli/io.js";
import { runEngineForeground } from "../commands/engine-foreground.js";
import { workspaceDir } from "../commands/common.js";
import { resolvePaths } from "../engine-address.js";

async function main(argv: string[]): Promise<number> {
  const io = processIo();
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: {
        "data-dir": { type: "string" },
        config: { type: "string" },
        workspace: { type: "string" },
        foreground: { type: "boolean" },
        demo: { type: "boolean" },
      },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.join(" ") !== "engine start" || !values.foreground) {
      throw new UsageError(`this entry point only runs 'engine start --foreground' (got '${argv.join(" ")}')`);
    }
    const absolute = (v: string | undefined): string | undefined => (v === undefined ? undefined : resolve(io.cwd, v));
    const paths = resolvePaths({ dataDir: absolute(values["data-dir"]), configFile: absolute(values.config) }, io.env);
    return await runEngineForeground(io, {
      paths,
      workspace: workspaceDir(io.cwd, values.workspace),
      demo: values.demo ?? false,
    });
  } catch (err) {
    // Read by the CLI that started it, in engine.log: one line and a hint, as the CLI says them.
    if (!(err instanceof CliError)) throw err;
    println(io.stderr, `palisade: ${err.message}`);
    if (err.hint) println(io.stderr, `  ${err.hint}`);
    return err.exitCode;
  }
}

process.exit(
  await main(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(
      `palisade: the Engine failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    return ExitCode.FAILURE;
  }),
);
