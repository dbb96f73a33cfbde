import { CapabilityDefinitionError } from "./errors.js";
import type { CapabilitySpec, Readiness, ToolDefinition } from "./types.js";
import { compileSchema, createAjv } from "./validation.js";
import type { ArgsValidator } from "./validation.js";

const ID_PATTERN = /^[a-z0-9][a-z0-9_.-]*$/;
const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** A validated capability, ready for `serveCapability`. */
export interface CapabilityDefinition {
  readonly id: string;
  readonly tools: readonly ToolDefinition[];
  readonly ready: (() => Promise<Readiness> | Readiness) | undefined;
  /** The tool called `name`, if any. */
  tool(name: string): ToolDefinition | undefined;
  /** Validates `args` against the tool's schema; returns an error text naming each field, or undefined. */
  validateArgs(name: string, args: unknown): string | undefined;
}

/**
 * Checks a capability declaration and compiles its input schemas.
 * Throws CapabilityDefinitionError listing every problem (id, duplicate or bad tool names,
 * missing handlers, schemas that do not compile).
 */
export function defineCapability(spec: CapabilitySpec): CapabilityDefinition {
  const problems: string[] = [];
  const id = typeof spec.id === "string" ? spec.id : "";
  if (!ID_PATTERN.test(id)) problems.push(`id: "${id}" must match ${String(ID_PATTERN)}`);
  if (!Array.isArray(spec.tools) || spec.tools.length === 0) problems.push("tools: declare at least one tool");

  const ajv = createAjv();
  const tools = new Map<string, ToolDefinition>();
  const validators = new Map<string, ArgsValidator>();
  (spec.tools ?? []).forEach((tool, i) => {
    const at = `tools[${i}]`;
    const name = typeof tool.name === "string" ? tool.name : "";
    if (!TOOL_NAME_PATTERN.test(name)) problems.push(`${at}.name: "${name}" must match ${String(TOOL_NAME_PATTERN)}`);
    else if (tools.has(name)) problems.push(`${at}.name: duplicate tool name "${name}"`);
    if (typeof tool.description !== "string" || tool.description.trim() === "")
      problems.push(`${at}.description: must be a non-empty string`);
    if (typeof tool.handler !== "function") problems.push(`${at}.handler: must be a function`);
    if (tool.stream !== undefined && typeof tool.stream !== "function")
      problems.push(`${at}.stream: must be an async generator function`);
    if (typeof tool.inputSchema !== "object" || tool.inputSchema === null || Array.isArray(tool.inputSchema)) {
      problems.push(`${at}.inputSchema: must be a JSON Schema object`);
    } else {
      const compiled = compileSchema(ajv, tool.inputSchema, name);
      if (typeof compiled === "string") problems.push(`${at}.inputSchema: ${compiled}`);
      else validators.set(name, compiled);
    }
    if (!tools.has(name)) tools.set(name, tool);
  });
  if (spec.ready !== undefined && typeof spec.ready !== "function") problems.push("ready: must be a function");
  if (problems.length > 0) throw new CapabilityDefinitionError(id, problems);

  const list = Object.freeze([...tools.values()]);
  return Object.freeze({
    id,
    tools: list,
    ready: spec.ready,
    tool: (name: string) => tools.get(name),
    validateArgs: (name: string, args: unknown) => validators.get(name)?.(args),
  });
}
