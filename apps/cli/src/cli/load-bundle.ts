// Loads the client bundle (dist/bundle/client.cjs) as one vm.Script with a V8 code cache taken
// after a command ran: it holds the bytecode of every function that command used, so the next
// run compiles next to nothing (~30 ms of CPU of a ~130 ms `sessions list`). Node's own compile
// cache keeps only what compiles eagerly, a small part of a bundle whose code sits in functions.
// One cache per command (what `run` uses is not what `sessions list` uses), in the bundle's own
// directory, written by whoever may write the bundle (as Node's compile cache). V8 checks a cache
// against the source's length, its own version and flags, not the content: the cache is only
// valid because a rebuild replaces the bundle's directory whole, caches included. A rejected or
// missing cache is written anew at exit.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Script, constants } from "node:vm";
import { CLIENT_COMMANDS } from "./client-commands.js";
import type { CliIo } from "./io.js";

export interface ClientBundle {
  runClient(argv: string[], io: CliIo): Promise<number | undefined>;
}

/** Global options that take a value (a value is not a command word). */
const WITH_VALUE = new Set(["--data-dir", "--config", "--workspace"]);

/** Names the code cache of the command in `argv`: its words when it is a client command, else "other". */
export function cacheKey(argv: string[]): string {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const a = argv[i] as string;
    if (a === "--") break;
    if (a.startsWith("-")) {
      if (WITH_VALUE.has(a)) i++;
      continue;
    }
    words.push(a);
  }
  if (words[0] === "run") return "run";
  const command = words.join(" ");
  return CLIENT_COMMANDS.includes(command) ? command.replace(" ", "-") : "other";
}

function saveCache(script: Script, file: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, script.createCachedData(), { mode: 0o644 });
    renameSync(tmp, file);
  } catch {
    // a read-only checkout: it compiles each time, as without the cache
  }
}

/**
 * Compiles and runs the bundle `file` as CommonJS, with the code cache of `key` in `cacheDir`.
 * With `sourceMaps`, Node's own loader runs it instead (no cache): it maps stack traces to the
 * TypeScript sources, which it does not for a vm.Script.
 */
export function loadBundle(file: string, cacheDir: string, key: string, sourceMaps = false): ClientBundle {
  if (sourceMaps) return createRequire(file)(file) as ClientBundle;
  const source = readFileSync(file, "utf8");
  const cacheFile = join(cacheDir, `${key}.v8`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // The wrapper keeps line numbers (it adds no line), so source maps and stack traces line up.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (!cachedData || script.cachedDataRejected === true) process.once("exit", () => saveCache(script, cacheFile));
  const module = { exports: {} as ClientBundle };
  const run = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: unknown,
    filename: string,
    dirname: string,
  ) => void;
  run(module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
}
