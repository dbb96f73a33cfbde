// How the Engine finds and starts this capability, without loading its implementation
// (the Engine imports this module at start-up: `@palisade/capability-files/launch`).
import { fileURLToPath } from "node:url";

/** The Selu manifest of this capability. */
export const manifestPath = fileURLToPath(new URL("../manifest.yaml", import.meta.url));
/** The capability's prompt, added to the system prompt when its tools are loaded. */
export const promptPath = fileURLToPath(new URL("../prompt.md", import.meta.url));
/**
 * How the Engine launches it: Node on the compiled entry point (`dist/main.js`, also when this
 * module is loaded from its sources), with `protocol: palisade`: it listens on the unix socket the
 * Engine names and requires the secret the Engine writes on its stdin. Standalone, for development
 * only: `node dist/main.js --insecure-dev` (env PORT, HOST; no authentication).
 */
export const command: readonly string[] = [
  process.execPath,
  fileURLToPath(new URL("../dist/main.js", import.meta.url)),
];
