/**
 * The commands the client bundle serves, by their words (src/client.ts): they only talk to a
 * running Engine, or start one in the background. Their modules (commands/run-command, run,
 * sessions, artifacts, engine) are the only command modules in the bundle
 * (scripts/bundle-client.mjs); the Engine (`@palisade/engine`) stays outside it, loaded as is.
 */
export const CLIENT_COMMANDS: readonly string[] = [
  "run",
  "sessions list",
  "sessions show",
  "sessions search",
  "sessions export",
  "sessions rename",
  "sessions delete",
  "artifacts list",
  "artifacts save",
  "engine status",
  "engine stop",
];
