import type { ToolGroup } from "@palisade/protocol/pipeline";
import type { ToolDef } from "@palisade/protocol/types";
import type { ChatCompletionTool } from "./model.js";

export const LOAD_TOOLS = "load_tools";

/** The tool definition as the Agent keeps it (wire ToolDef without the protobuf envelope). */
export interface ToolSpec {
  name: string;
  description: string;
  parametersJson: string;
  group: string;
  terminalOnSuccess: boolean;
}

export function toSpec(
  def: Pick<ToolDef, "name" | "description" | "parametersJson" | "group" | "terminalOnSuccess">,
): ToolSpec {
  return {
    name: def.name,
    description: def.description,
    parametersJson: def.parametersJson,
    group: def.group,
    terminalOnSuccess: def.terminalOnSuccess,
  };
}

const LOAD_TOOLS_PARAMETERS = JSON.stringify({
  type: "object",
  properties: {
    groups: { type: "array", items: { type: "string" }, description: "Names of the tool groups to load." },
  },
  required: ["groups"],
});

/** A `load_tools` definition for when the Engine sent groups but no meta-tool of its own. */
export function defaultLoadTools(): ToolSpec {
  return {
    name: LOAD_TOOLS,
    description: "Load groups of tools so you can call them. Call this before using a tool from a group.",
    parametersJson: LOAD_TOOLS_PARAMETERS,
    group: "",
    terminalOnSuccess: false,
  };
}

export function describeGroups(groups: readonly ToolGroup[]): string {
  return groups
    .map((g) => `- ${g.name} (${String(g.toolCount)} tools)${g.description ? `: ${g.description}` : ""}`)
    .join("\n");
}

/**
 * Parsed parameter schemas by their JSON text. Every turn brings the same tool definitions, so
 * each is parsed once, and the shared objects let the token estimate measure them once.
 * Never mutated after parsing; cleared when it grows past PARSED_MAX (tools that come and go).
 */
const parsed = new Map<string, Record<string, unknown>>();
const PARSED_MAX = 1000;

function parseParameters(json: string): Record<string, unknown> {
  const known = parsed.get(json);
  if (known) return known;
  let schema: Record<string, unknown> = { type: "object", properties: {} };
  try {
    const value: unknown = JSON.parse(json || "{}");
    if (value && typeof value === "object" && !Array.isArray(value)) schema = value as Record<string, unknown>;
  } catch {
    // a tool with unreadable parameters still gets an object schema
  }
  if (parsed.size >= PARSED_MAX) parsed.clear();
  parsed.set(json, schema);
  return schema;
}

/** The tools a turn offers the model, by name, in insertion order. */
export class ToolSet {
  private readonly byName = new Map<string, ToolSpec>();
  private params: ChatCompletionTool[] | undefined;

  constructor(
    tools: readonly ToolSpec[] = [],
    private readonly groups: readonly ToolGroup[] = [],
  ) {
    this.add(tools);
    if (groups.length > 0 && !this.byName.has(LOAD_TOOLS)) this.add([defaultLoadTools()]);
  }

  add(tools: readonly ToolSpec[]): void {
    for (const t of tools) this.byName.set(t.name, t);
    if (tools.length > 0) this.params = undefined;
  }

  get(name: string): ToolSpec | undefined {
    return this.byName.get(name);
  }

  get size(): number {
    return this.byName.size;
  }

  /**
   * OpenAI tool parameters; the load_tools description lists the groups it can load. Built once
   * per change of the set (each model call of a turn asks for them); callers must not modify them.
   */
  toParams(): ChatCompletionTool[] {
    this.params ??= [...this.byName.values()].map((t) => {
      let description = t.description;
      if (t.name === LOAD_TOOLS && this.groups.length > 0)
        description += `\n\nAvailable groups:\n${describeGroups(this.groups)}`;
      return {
        type: "function",
        function: { name: t.name, description, parameters: parseParameters(t.parametersJson) },
      };
    });
    return this.params;
  }
}

/** The `groups` argument of a load_tools call, or an error message the model can act on. */
export function parseLoadToolsArgs(argumentsJson: string): { groups: string[] } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(argumentsJson || "{}");
  } catch {
    return {
      error: `load_tools: arguments are not valid JSON (${argumentsJson.slice(0, 100)}); pass {"groups": ["name", ...]}`,
    };
  }
  const groups = (value as { groups?: unknown } | null)?.groups;
  const list = typeof groups === "string" ? [groups] : groups;
  if (!Array.isArray(list) || list.length === 0 || !list.every((g) => typeof g === "string" && g.length > 0)) {
    return { error: 'load_tools: "groups" must be a non-empty array of group names, e.g. {"groups": ["files"]}' };
  }
  return { groups: list as string[] };
}
