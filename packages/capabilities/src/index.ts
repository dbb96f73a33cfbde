export { CapabilityHost } from "./host.js";
export type { CapabilityHostOptions, CapabilityPrompt, InvokeEvent } from "./host.js";
export type { InvokeOptions, InvokeResult } from "./invoke.js";
export { DEFAULT_INVOKE_TIMEOUT_MS } from "./invoke.js";
export { RESTART_WINDOW_MS, RestartBudget } from "./supervise.js";
export type { CapabilityState, CapabilityStatus, LaunchMode } from "./runtime.js";

export { validateCapabilityConfigs, capabilityConfigSchema, isMcpConfig, launchCommand } from "./config.js";
export type { AnyCapabilityConfig, CapabilityConfig, McpCapabilityConfig } from "./config.js";

export { dieWithParent, stdioSpawn } from "./mcp/launch.js";
export type { StdioContext, StdioSpawn, StdioWrapper, WrappedSpawn } from "./mcp/launch.js";
export { sandboxedStdio, stdioSandboxSpec } from "./mcp/sandbox.js";
export { checkMcpServer, formatMcpCheck } from "./mcp/check.js";
export { describeChannel } from "./launch/channel.js";
export type { ChannelInfo, ChannelKind } from "./launch/channel.js";
export type { McpCheckReport } from "./mcp/check.js";
export type { SandboxedStdioOptions } from "./mcp/sandbox.js";
export type { McpHttpConfig, McpOAuthConfig, McpServerConfig, McpStdioConfig } from "./mcp/config.js";
export type { McpServerInfo } from "./mcp/runtime.js";
export type { Elicit, ElicitationAnswer, ElicitationRequest } from "./mcp/elicit.js";
export { loginMcpServer } from "./mcp/login.js";
export type { LoginOptions, LoginResult } from "./mcp/login.js";
export { mcpPolicy } from "./mcp/tools.js";

export { loadManifest } from "./manifest/load.js";
export { parseManifest, validateManifest } from "./manifest/validate.js";
export { hostAllowed, parseHostEntry } from "./manifest/hosts.js";
export { RESOURCE_DEFAULTS } from "./manifest/types.js";
export type { CredentialSpec, Manifest, ManifestTool, NetworkPolicy, Resources } from "./manifest/types.js";

export { compileToolSchema } from "./json-schema.js";
export {
  argumentProblems,
  defaultPolicy,
  fullToolName,
  parseDiscoveredTools,
  resolveTool,
  toolEntries,
  withConfigSemantics,
  NAME_SEPARATOR,
} from "./catalog.js";
export type { ToolAnnotations, ToolEntry } from "./catalog.js";

export {
  STORE_PASSWORD,
  SecretRedactor,
  UserCredentialStore,
  createCredentialSource,
  missingCredentialMessage,
  resolveCredentials,
  storedStorePassword,
} from "./credentials.js";
export type { CredentialSource, CredentialSourceOptions } from "./credentials.js";

export {
  ARTIFACT_CHUNK_BYTES,
  DEFAULT_ARTIFACT_TTL_MS,
  DEFAULT_MAX_ARTIFACT_BYTES,
  DiskArtifactStore,
  artifactNotFound,
  chunksOf,
} from "./artifacts/store.js";
export type {
  ArtifactMeta,
  ArtifactOwner,
  ArtifactStore,
  DiskArtifactStoreOptions,
  PutArtifact,
} from "./artifacts/store.js";
export {
  DEFAULT_MEMORY_ARTIFACT_TOTAL_BYTES,
  MemoryArtifactStore,
  SessionRoutedArtifactStore,
} from "./artifacts/memory.js";
export type { MemoryArtifactStoreOptions } from "./artifacts/memory.js";
export {
  findInputAttachments,
  findOutputArtifacts,
  refToJson,
  rewriteInput,
  rewriteOutput,
} from "./artifacts/rewrite.js";
export type { ArtifactRef, InputAttachment, OutputArtifactSource, UploadedAttachment } from "./artifacts/rewrite.js";
export { downloadArtifact, guessMimeType, uploadArtifact } from "./artifacts/transfer.js";
export { readArtifact, safeFilename, saveArtifact } from "./artifacts/export.js";
export type { ArtifactDownloadChunk } from "./artifacts/export.js";

export { dockerRunArgs, requireDocker, CONTAINER_PORT, INTERNAL_NETWORK } from "./launch/docker.js";
export type { DockerRunSpec } from "./launch/docker.js";
export { scrubbedEnv } from "./launch/process.js";
export {
  declaredPaths,
  describeSandbox,
  effectiveNetwork,
  expandHome,
  planSandbox,
  prepareCapabilitySandbox,
  previewView,
} from "./launch/sandbox.js";
export type { CapabilitySandboxOptions, SandboxPlan, SandboxSettings } from "./launch/sandbox.js";

export { CapabilityError, ValidationError, formatProblem } from "./errors.js";
export type { CapabilityErrorCode, Problem } from "./errors.js";
export { Deadline } from "./deadline.js";
