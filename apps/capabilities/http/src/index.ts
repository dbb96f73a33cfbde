import { fileURLToPath } from "node:url";

export { createHttpCapability } from "./capability.js";
export type { HttpCapabilityOptions } from "./capability.js";
export { classifyAddress } from "./address.js";
export { guardedFetch, systemResolver, DEFAULT_LIMITS } from "./fetch.js";
export type { FetchLimits, FetchOptions, FetchRequest, FetchResponse, Resolver } from "./fetch.js";
export { policyFromConfig, hostAllowed, DEFAULT_POLICY } from "./policy.js";
export type { NetworkMode, NetworkPolicy } from "./policy.js";

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
export const command: readonly string[] = [process.execPath, fileURLToPath(new URL("../dist/main.js", import.meta.url))];
