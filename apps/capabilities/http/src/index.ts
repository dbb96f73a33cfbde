export { createHttpCapability } from "./capability.js";
export type { HttpCapabilityOptions } from "./capability.js";
export { classifyAddress } from "./address.js";
export { guardedFetch, systemResolver, DEFAULT_LIMITS } from "./fetch.js";
export type { FetchLimits, FetchOptions, FetchRequest, FetchResponse, Resolver } from "./fetch.js";
export { policyFromConfig, hostAllowed, DEFAULT_POLICY } from "./policy.js";
export type { NetworkMode, NetworkPolicy } from "./policy.js";
export { command, manifestPath, promptPath } from "./launch.js";
