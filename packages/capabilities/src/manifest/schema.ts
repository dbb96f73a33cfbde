/**
 * Structure of a Selu `manifest.yaml` for ajv; cross-field rules live in validate.ts. Compiled
 * ahead of time into ../schemas.generated.ts (`npx tsx scripts/schemas.mjs`).
 */
import { MANIFEST_POLICIES } from "@palisade/protocol/policy";
import { schemaKeys } from "@palisade/schema";

const positiveInteger = { type: "integer", minimum: 1 } as const;

export const ID_PATTERN = "^[a-z0-9]+(-[a-z0-9]+)*$";
export const TOOL_NAME_PATTERN = "^[A-Za-z0-9_-]{1,64}$";
export const CREDENTIAL_NAME_PATTERN = "^[A-Za-z_][A-Za-z0-9_]*$";

export const manifestSchema = {
  type: "object",
  required: ["id"],
  properties: {
    id: {
      type: "string",
      pattern: ID_PATTERN,
      "x-message": "must be lowercase letters, digits and single hyphens, e.g. web-search",
    },
    class: { enum: ["tool", "environment"] },
    image: { type: "string", minLength: 1 },
    tool_source: { enum: ["manifest", "dynamic"] },
    discovery_tool_name: {
      type: "string",
      pattern: TOOL_NAME_PATTERN,
      "x-message": "must be a tool name (letters, digits, _ and -, at most 64)",
    },
    tools: {
      type: "array",
      items: {
        type: "object",
        required: ["name", "description", "input_schema"],
        properties: {
          name: {
            type: "string",
            pattern: TOOL_NAME_PATTERN,
            "x-message": "must be letters, digits, _ and - (at most 64), as LLM tool names require",
          },
          description: { type: "string", minLength: 1 },
          input_schema: { type: "object" },
          requires_confirmation: { type: "boolean" },
          recommended_policy: { enum: [...MANIFEST_POLICIES] },
          terminal_on_success: { type: "boolean" },
          streaming: { type: "boolean" },
          semantics: { type: "object" },
        },
      },
    },
    network: {
      type: "object",
      properties: {
        mode: { enum: ["none", "allowlist", "any"] },
        hosts: { type: "array", items: { type: "string" } },
      },
    },
    filesystem: { enum: ["none", "temp", "workspace"] },
    credentials: {
      type: "array",
      items: {
        type: "object",
        required: ["name", "scope"],
        properties: {
          name: {
            type: "string",
            pattern: CREDENTIAL_NAME_PATTERN,
            "x-message": "must be an environment variable name (letters, digits, _)",
          },
          scope: { enum: ["system", "user"] },
          credential_type: { enum: ["secret"] },
          required: { type: "boolean" },
          description: { type: "string" },
        },
      },
    },
    sandbox: {
      type: "object",
      properties: {
        read_only: { type: "array", items: { type: "string", minLength: 1 } },
        writable: { type: "array", items: { type: "string", minLength: 1 } },
        sockets: { type: "array", items: { type: "string", minLength: 1 } },
      },
    },
    resources: {
      type: "object",
      properties: {
        max_memory_mb: positiveInteger,
        max_cpu_fraction: { type: "number", exclusiveMinimum: 0 },
        max_cpu_seconds: positiveInteger,
        pids_limit: positiveInteger,
        max_file_size_mb: positiveInteger,
      },
    },
  },
} as const;

/** Keys Palisade understands, per object (from the schema); anything else is a warning, not an error. */
export const KNOWN_KEYS: Record<string, readonly string[]> = {
  "": schemaKeys(manifestSchema),
  tools: schemaKeys(manifestSchema, ["tools", "[]"]),
  network: schemaKeys(manifestSchema, ["network"]),
  credentials: schemaKeys(manifestSchema, ["credentials", "[]"]),
  sandbox: schemaKeys(manifestSchema, ["sandbox"]),
  resources: schemaKeys(manifestSchema, ["resources"]),
};
