export { createShellCapability } from "./capability.js";
export { runCommand, DEFAULT_TIMEOUT_MS, KILL_GRACE_MS } from "./runner.js";
export type { RunOptions, RunResult } from "./runner.js";
export { CappedOutput, LineSplitter, DEFAULT_MAX_OUTPUT_BYTES } from "./output.js";
export { command, manifestPath, promptPath } from "./launch.js";
