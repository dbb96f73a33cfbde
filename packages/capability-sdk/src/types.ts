/** JSON Schema of a tool's arguments (draft 2020-12 subset understood by ajv 8). */
export type JsonSchema = Record<string, unknown>;

/** Arguments after validation against the tool's input schema. */
export type ToolArgs = Record<string, unknown>;

export interface ArtifactMeta {
  filename: string;
  /** Defaults to `application/octet-stream`. */
  mimeType?: string;
}

/**
 * The result fragment that announces an output artifact to the orchestrator; return it
 * (or embed it) in the tool result so the host downloads the bytes.
 */
export interface ArtifactRef {
  artifact: {
    capability_artifact_id: string;
    filename: string;
    mime_type: string;
    size_bytes: number;
  };
}

export interface InputArtifact {
  data: Uint8Array;
  filename: string;
  mimeType: string;
}

export interface ToolArtifacts {
  /** Keeps `bytes` in memory (TTL) for DownloadOutputArtifact; returns the result fragment. */
  storeOutput(bytes: Uint8Array, meta: ArtifactMeta): ArtifactRef;
  /** An artifact uploaded with UploadInputArtifact, or undefined if unknown or expired. */
  getInput(capabilityArtifactId: string): InputArtifact | undefined;
}

/** What a handler knows about its call. */
export interface ToolContext {
  readonly toolName: string;
  readonly sessionId: string;
  readonly threadId: string;
  /** `capability_id` of the request, or the definition's id when the request leaves it empty. */
  readonly capabilityId: string;
  /** Parsed `config_json` (credentials and runtime config); `{}` when empty. */
  readonly config: Record<string, unknown>;
  /** Fires when the client cancels, the deadline passes, or the server shuts down. */
  readonly signal: AbortSignal;
  readonly artifacts: ToolArtifacts;
}

/** One item of a streamed result: text (UTF-8), raw bytes, or a value sent as JSON. */
export type StreamItem = string | Uint8Array | object;

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  /**
   * Runs the tool. The return value must be JSON-serializable and becomes `result_json`.
   * Throw `ToolError` for failures the model should see. Declared as a method so handlers
   * may annotate `args` with a narrower type that matches the schema.
   */
  handler(args: ToolArgs, ctx: ToolContext): Promise<unknown>;
  /** Serves StreamInvoke; without it, StreamInvoke sends the handler's result as one chunk. */
  stream?(args: ToolArgs, ctx: ToolContext): AsyncIterable<StreamItem>;
}

export interface Readiness {
  ready: boolean;
  message?: string;
}

export interface CapabilitySpec {
  /** Capability id, as in manifest.yaml. */
  id: string;
  tools: readonly ToolDefinition[];
  /** Healthcheck hook; without it the capability is ready as soon as it listens. */
  ready?: () => Promise<Readiness> | Readiness;
}

/**
 * One item of an `attachments` argument (the Selu convention): the model passes `artifact_id`; the Engine
 * rewrites it to `capability_artifact_id` plus metadata before the call reaches the capability.
 */
export const ATTACHMENT_ITEM_SCHEMA = {
  type: "object",
  properties: {
    artifact_id: { type: "string" },
    capability_artifact_id: { type: "string" },
    filename: { type: "string" },
    mime_type: { type: "string" },
    size_bytes: { type: "integer" },
  },
} as const;
