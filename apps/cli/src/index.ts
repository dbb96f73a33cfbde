export { runCli, reportError } from "./cli/run-cli.js";
export { COMMAND_TREE } from "./cli/tree.js";
export type { CliIo } from "./cli/io.js";
export { CliError, UsageError, ExitCode } from "./cli/errors.js";
export type { CommandSpec, CommandContext, OptionSpec, PositionalSpec } from "./cli/spec.js";
export {
  resolvePaths,
  socketPathProblem,
  ensureDataDir,
  readEngineInfo,
  isProcessAlive,
  findEngine,
  MAX_SOCKET_PATH_BYTES,
} from "./engine-address.js";
export type { EngineEndpoint, EngineInfo, PalisadePaths, PathOverrides } from "./engine-address.js";
export { connectToEngine, openClient } from "./engine/connect.js";
export type { EngineClient, EngineConnection, ConnectOptions } from "./engine/connect.js";
