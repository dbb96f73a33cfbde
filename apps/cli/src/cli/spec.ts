import type { CliIo } from "./io.js";

export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  description: string;
  /** Shown in help, e.g. `--format FORMAT`. */
  valueName?: string;
}

export interface PositionalSpec {
  name: string;
  description: string;
  required?: boolean;
  /** Takes every remaining positional (e.g. a search query of several words). */
  rest?: boolean;
}

export type OptionValues = Record<string, string | boolean | undefined>;

/** What a command's `run` receives after parsing. */
export interface CommandContext {
  io: CliIo;
  /** Global and command options, by long name (`data-dir`, `json`, ...). */
  options: OptionValues;
  positionals: string[];
  /** The arguments after the command path, unparsed (for delegated commands). */
  rawArgs: string[];
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
  /** Delegated commands get their raw arguments and parse them themselves. */
  passThrough?: boolean;
  run?: (ctx: CommandContext) => Promise<number>;
}

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  config: { type: "string", valueName: "FILE", description: "configuration file (default ~/.config/palisade/config.yaml)" },
  "data-dir": { type: "string", valueName: "DIR", description: "data directory (default ~/.local/share/palisade; env PALISADE_DATA_DIR)" },
  workspace: { type: "string", valueName: "DIR", description: "directory the files and shell tools act in (default: current directory)" },
  help: { type: "boolean", short: "h", description: "show help for the command" },
};
