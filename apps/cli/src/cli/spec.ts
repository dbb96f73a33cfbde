import type { CliIo } from "./io.js";

export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  description: string;
  /** Shown in help, e.g. `--format FORMAT`. */
  valueName?: string;
  /** What applies when the option is absent, shown in help (booleans: "off" unless given). */
  default?: string;
  /** May be given several times; the command receives every value in order. */
  multiple?: boolean;
}

export interface PositionalSpec {
  name: string;
  description: string;
  required?: boolean;
  /** Takes every remaining positional (e.g. a search query of several words). */
  rest?: boolean;
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

/** What a command's `run` receives after parsing. */
export interface CommandContext {
  io: CliIo;
  /** Global and command options, by long name (`data-dir`, `json`, ...). */
  options: OptionValues;
  positionals: string[];
  /** e.g. `["sessions", "list"]`. */
  path: string[];
}

export interface CommandSpec {
  name: string;
  summary: string;
  /** Longer help text printed under the usage line. */
  description?: string;
  options?: Record<string, OptionSpec>;
  positionals?: PositionalSpec[];
  subcommands?: CommandSpec[];
  /** Examples shown in help. */
  examples?: string[];
  run?: (ctx: CommandContext) => Promise<number>;
}

/** Accepted before or after the command words by every command, with the same meaning. */
export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  config: {
    type: "string",
    valueName: "FILE",
    description: "configuration file; a missing file means the built-in defaults",
    default: "$PALISADE_CONFIG, else ~/.config/palisade/config.yaml",
  },
  "data-dir": {
    type: "string",
    valueName: "DIR",
    description: "data directory: history, audit trail, artifacts, credentials, the Engine's socket and log",
    default: "$PALISADE_DATA_DIR, else ~/.local/share/palisade",
  },
  workspace: {
    type: "string",
    valueName: "DIR",
    description: "directory the files and shell tools act in (must exist)",
    default: "the current directory",
  },
  help: { type: "boolean", short: "h", description: "show help for the command" },
};

type Handler = (ctx: CommandContext) => Promise<number>;

/**
 * A command's `run` that imports its module when the command runs, so `palisade <one command>`
 * loads that command's code and dependencies only (the chat's ink and React, the Engine, the
 * Shield stay unloaded for `palisade run`).
 */
export function lazy<M extends Record<K, Handler>, K extends string>(load: () => Promise<M>, name: K): Handler {
  return async (ctx) => (await load())[name](ctx);
}
