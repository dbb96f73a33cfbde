import { defineCapability } from "@palisade/capability-sdk";
import type { CapabilityDefinition } from "@palisade/capability-sdk";
import { DEFAULT_LIMITS, systemResolver } from "./fetch.js";
import type { FetchLimits, Resolver } from "./fetch.js";
import { httpRequestTool } from "./tool.js";

export interface HttpCapabilityOptions {
  /** DNS resolution (default: the system resolver); tests inject their own. */
  resolver?: Resolver;
  limits?: Partial<FetchLimits>;
  /** The sandbox's egress proxy URL: every request goes through it (see FetchOptions.proxy). */
  proxy?: string;
}

/** The `http` capability: HTTP(S) requests to public addresses and allowed hosts. */
export function createHttpCapability(options: HttpCapabilityOptions = {}): CapabilityDefinition {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  return defineCapability({
    id: "http",
    tools: [
      httpRequestTool({
        resolver: options.resolver ?? systemResolver,
        limits,
        ...(options.proxy ? { proxy: options.proxy } : {}),
      }),
    ],
  });
}
