import { defineCapability } from "@palisade/capability-sdk";
import type { CapabilityDefinition } from "@palisade/capability-sdk";
import { executeCommand } from "./tool.js";

/** The `shell` capability: run commands in the session's workspace. */
export function createShellCapability(): CapabilityDefinition {
  return defineCapability({ id: "shell", tools: [executeCommand] });
}
