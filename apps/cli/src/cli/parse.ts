import { parseArgs } from "node:util";
import { UsageError } from "./errors.js";
import type { CommandSpec, OptionSpec, OptionValues } from "./spec.js";
import { GLOBAL_OPTIONS } from "./spec.js";

export interface ParsedCommand {
  spec: CommandSpec;
  path: string[];
  options: OptionValues;
  positionals: string[];
  help: boolean;
}

const globalWithValue = new Set(
  Object.entries(GLOBAL_OPTIONS)
    .filter(([, o]) => o.type === "string")
    .map(([n]) => n),
);

function takesValue(token: string, spec: CommandSpec): boolean {
  if (token.includes("=") || !token.startsWith("--")) return false;
  const name = token.slice(2);
  return globalWithValue.has(name) || spec.options?.[name]?.type === "string";
}

function describeOptions(spec: CommandSpec): string {
  const own = Object.keys(spec.options ?? {}).map((n) => `--${n}`);
  const global = Object.keys(GLOBAL_OPTIONS).map((n) => `--${n}`);
  return own.length ? `${own.join(", ")} (and global ${global.join(", ")})` : `only the global ${global.join(", ")}`;
}

export function commandName(path: string[]): string {
  return ["palisade", ...path].join(" ");
}

/** Finds the command named by the leading words of `argv` (global flags may come first). */
function resolvePath(root: CommandSpec, argv: string[]): { spec: CommandSpec; path: string[]; rest: string[] } {
  let spec = root;
  const path: string[] = [];
  const rest: string[] = [];
  let descending = true;
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (token === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    if (token.startsWith("-")) {
      rest.push(token);
      if (takesValue(token, spec) && i + 1 < argv.length) rest.push(argv[++i] as string);
      continue;
    }
    const sub = descending ? spec.subcommands?.find((c) => c.name === token) : undefined;
    if (sub) {
      spec = sub;
      path.push(token);
      continue;
    }
    if (descending && spec.subcommands?.length && !spec.run) {
      const known = spec.subcommands.map((c) => c.name).join(", ");
      throw new UsageError(
        `unknown command '${token}' for '${commandName(path)}'`,
        `commands: ${known}; see '${commandName(path)} --help'`,
      );
    }
    descending = false;
    rest.push(token);
  }
  return { spec, path, rest };
}

function parseOptions(
  spec: CommandSpec,
  path: string[],
  args: string[],
): { options: OptionValues; positionals: string[] } {
  const options: Record<string, OptionSpec> = { ...GLOBAL_OPTIONS, ...spec.options };
  try {
    const parsed = parseArgs({
      args,
      options: Object.fromEntries(
        Object.entries(options).map(([n, o]) => [
          n,
          { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) },
        ]),
      ),
      allowPositionals: true,
      strict: true,
    });
    return { options: parsed.values as OptionValues, positionals: parsed.positionals };
  } catch (err) {
    const code = (err as { code?: string }).code;
    const message = err instanceof Error ? err.message : String(err);
    const flag = /'([^']+)'/.exec(message)?.[1];
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      throw new UsageError(
        `unknown option '${flag ?? message}' for '${commandName(path)}'`,
        `options: ${describeOptions(spec)}`,
      );
    }
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
      throw new UsageError(
        `${message.split(".")[0] ?? message} (in '${commandName(path)}')`,
        `see '${commandName(path)} --help'`,
      );
    }
    throw new UsageError(message, `see '${commandName(path)} --help'`);
  }
}

/** Parses `argv` against the command tree. Throws UsageError with what exists when it does not fit. */
export function parseCommandLine(root: CommandSpec, argv: string[]): ParsedCommand {
  const { spec, path, rest } = resolvePath(root, argv);
  const help = rest.includes("--help") || rest.includes("-h");
  if (help) return { spec, path, options: {}, positionals: [], help: true };
  const { options, positionals } = parseOptions(spec, path, rest);
  if (spec.subcommands?.length && !spec.run) return { spec, path, options, positionals, help: false };
  const declared = spec.positionals ?? [];
  const required = declared.filter((p) => p.required);
  if (positionals.length < required.length) {
    const missing = required[positionals.length];
    throw new UsageError(
      `'${commandName(path)}' needs <${missing?.name ?? "argument"}>`,
      `usage: see '${commandName(path)} --help'`,
    );
  }
  if (!declared.some((p) => p.rest) && positionals.length > declared.length) {
    const extra = positionals[declared.length] ?? "";
    throw new UsageError(
      `unexpected argument '${extra}' for '${commandName(path)}'`,
      declared.length
        ? `it takes ${declared.map((p) => `<${p.name}>`).join(" ")}`
        : "it takes no arguments; quote text that contains spaces",
    );
  }
  return { spec, path, options, positionals, help: false };
}
