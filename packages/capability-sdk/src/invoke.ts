import type { InvokeRequest } from "@palisade/protocol/capability";
import type { ArtifactStore } from "./artifacts.js";
import type { CapabilityDefinition } from "./define.js";
import { ToolError } from "./errors.js";
import type { StreamItem, ToolArgs, ToolContext, ToolDefinition } from "./types.js";

const decoder = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

/** A call that is ready to run: the tool, its validated arguments and its context. */
export interface PreparedCall {
  tool: ToolDefinition;
  args: ToolArgs;
  ctx: ToolContext;
}

export type Reporter = (message: string, err?: unknown) => void;

/** Resolves the tool, parses and validates arguments and config. Throws ToolError on any problem. */
export function prepareCall(
  cap: CapabilityDefinition,
  store: ArtifactStore,
  req: InvokeRequest,
  signal: AbortSignal,
): PreparedCall {
  const tool = cap.tool(req.toolName);
  if (!tool) {
    const known = cap.tools.map((t) => t.name).join(", ");
    throw new ToolError(`unknown tool "${req.toolName}" for capability ${cap.id}; known tools: ${known}`, {
      code: "unknown_tool",
    });
  }
  const args = parseJsonObject(
    req.argsJson,
    (why) => `invalid JSON arguments for ${tool.name}: ${why}; send a JSON object matching the tool's input schema`,
  );
  const problem = cap.validateArgs(tool.name, args);
  if (problem !== undefined) throw new ToolError(`invalid arguments: ${problem}`, { code: "invalid_arguments" });
  const config = parseJsonObject(
    req.configJson,
    (why) => `invalid config_json for capability ${cap.id}: ${why}; the orchestrator must send a JSON object`,
  );
  const ctx: ToolContext = {
    toolName: tool.name,
    sessionId: req.sessionId,
    threadId: req.threadId,
    capabilityId: req.capabilityId || cap.id,
    config,
    signal,
    artifacts: {
      storeOutput: (bytes, meta) => store.storeOutput(bytes, meta),
      getInput: (id) => store.getInput(id),
    },
  };
  return { tool, args, ctx };
}

/** Empty bytes mean `{}`; anything else must be UTF-8 JSON of an object. */
function parseJsonObject(bytes: Uint8Array, explain: (why: string) => string): Record<string, unknown> {
  if (bytes.byteLength === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch (err) {
    throw new ToolError(explain(err instanceof Error ? err.message : String(err)), { code: "invalid_json" });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ToolError(
      explain(
        `expected a JSON object, got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`,
      ),
      { code: "invalid_json" },
    );
  }
  return value as Record<string, unknown>;
}

/** Runs the handler and encodes its result as JSON bytes. */
export async function runHandler(call: PreparedCall): Promise<Uint8Array> {
  const result = await call.tool.handler(call.args, call.ctx);
  return encodeResult(call.tool.name, result);
}

export function encodeResult(toolName: string, result: unknown): Uint8Array {
  let json: string | undefined;
  try {
    json = JSON.stringify(result);
  } catch (err) {
    throw new ToolError(
      `tool ${toolName} returned a result that is not JSON-serializable: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return encoder.encode(json ?? "null");
}

export function encodeStreamItem(item: StreamItem): Uint8Array {
  if (typeof item === "string") return encoder.encode(item);
  if (item instanceof Uint8Array) return item;
  return encoder.encode(JSON.stringify(item));
}

/** The text sent as `error` for anything a handler (or the SDK) threw. */
export function errorMessage(toolName: string, err: unknown, signal: AbortSignal, report: Reporter): string {
  if (err instanceof ToolError) return err.message;
  if (signal.aborted) return `tool ${toolName} was cancelled: ${reasonText(signal.reason)}`;
  report(`tool ${toolName} threw`, err);
  return `tool ${toolName} failed: ${err instanceof Error ? err.message : String(err)}`;
}

function reasonText(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}
