export { createFilesCapability } from "./capability.js";
export { Workspace, WORKSPACE_ENV } from "./workspace.js";
export type { ResolvedPath, ResolveOptions } from "./workspace.js";
export { looksBinary } from "./text.js";
export { command, manifestPath, promptPath } from "./launch.js";
