export { defineCapability } from "./define.js";
export type { CapabilityDefinition } from "./define.js";
export { serveCapability, DEFAULT_HOST, DEFAULT_PORT, INSECURE_DEV_FLAG } from "./serve.js";
export { SOCKET_ENV, LaunchError } from "./launch.js";
export { MIN_SECRET_LENGTH, SECRET_METADATA_KEY, secretAuthorizer } from "./auth.js";
export type { CapabilityServer, ServeOptions } from "./serve.js";
export { CapabilityDefinitionError, ToolError } from "./errors.js";
export { ARTIFACT_CHUNK_BYTES, DEFAULT_ARTIFACT_TTL_MS, DEFAULT_MAX_ARTIFACT_BYTES } from "./artifacts.js";
export type {
  ArtifactMeta,
  ArtifactRef,
  CapabilitySpec,
  InputArtifact,
  JsonSchema,
  Readiness,
  StreamItem,
  ToolArgs,
  ToolArtifacts,
  ToolContext,
  ToolDefinition,
} from "./types.js";
export { ATTACHMENT_ITEM_SCHEMA } from "./types.js";
