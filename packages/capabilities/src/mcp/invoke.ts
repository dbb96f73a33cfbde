import type { Client, Progress, Tool } from "@modelcontextprotocol/client";
import { DEFAULT_MAX_MESSAGE_BYTES } from "@palisade/protocol";
import type { ArtifactStore } from "../artifacts/store.js";
import { argumentProblems } from "../catalog.js";
import type { ToolEntry } from "../catalog.js";
import type { SecretRedactor } from "../credentials.js";
import { CapabilityError } from "../errors.js";
import type { CapabilityErrorCode } from "../errors.js";
import { abortOutcome, callDeadline } from "../invoke.js";
import type { InvokeOptions, InvokeResult } from "../invoke.js";
import type { Deadline } from "../deadline.js";
import { withoutNullOptionals } from "./arguments.js";
import { convertResult, errorText } from "./results.js";
import { loadMcpSdk } from "./sdk.js";
import type { ReadResource } from "./results.js";
import type { ProgressTap } from "./progress.js";

export interface McpInvokeDeps {
  client: Client;
  progress: ProgressTap;
  entry: ToolEntry;
  /** The tool as the server listed it: the client mirrors its `x-mcp-header` parameters into headers. */
  definition?: Tool;
  capabilityId: string;
  defaultTimeoutMs: number;
  /** Gets the call's deadline as it starts: the elicitations of the call pause it. */
  onDeadline?: (deadline: Deadline) => void;
  artifacts: ArtifactStore;
  redactor: SecretRedactor;
}

/** The longest timer Node keeps (about 24.8 days). */
const SDK_TIMEOUT_MS = 2 ** 31 - 1;

/** How a progress notification reads in the client's stream. */
export function progressText(p: Progress): string {
  const amount = p.total === undefined ? `${p.progress}` : `${p.progress}/${p.total}`;
  return p.message ? `progress ${amount}: ${p.message}\n` : `progress ${amount}\n`;
}

/**
 * One tools/call: arguments checked against the tool's schema first, progress reported as
 * chunks, cancellation and the deadline sent to the server as notifications/cancelled, and
 * the result converted (artifacts stored, `isError` as a tool error).
 */
export async function callMcpTool(deps: McpInvokeDeps, args: unknown, opts: InvokeOptions): Promise<InvokeResult> {
  const started = performance.now();
  const toolName = deps.entry.fullName;
  const finish = (r: Omit<InvokeResult, "durationMs" | "terminal">): InvokeResult => ({
    ...r,
    content: deps.redactor.redact(r.content),
    terminal: false,
    durationMs: performance.now() - started,
  });
  const fail = (code: CapabilityErrorCode, message: string): InvokeResult => {
    const m = deps.redactor.redact(message);
    return finish({ ok: false, content: m, result: undefined, artifacts: [], error: { code, message: m } });
  };

  args = withoutNullOptionals(deps.entry.inputSchema, args);
  const problems = argumentProblems(toolName, deps.entry.inputSchema, args);
  if (problems.length > 0) return fail("invalid_arguments", `invalid arguments: ${problems.join("; ")}`);

  const ownMs = opts.timeoutMs ?? deps.defaultTimeoutMs;
  const controller = new AbortController();
  const { deadline: timer, timeoutMs } = callDeadline(
    ownMs,
    () => controller.abort(new CapabilityError("timeout", `deadline of ${ownMs} ms exceeded`)),
    opts.deadline,
  );
  deps.onDeadline?.(timer);
  const onAbort = (): void =>
    controller.abort(opts.signal?.reason ?? new CapabilityError("cancelled", "cancelled by the caller"));
  if (opts.signal?.aborted) onAbort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  const signal = controller.signal;
  const onChunk = opts.onChunk;
  const token = onChunk ? deps.progress.listen((p) => onChunk(deps.redactor.redact(progressText(p)))) : undefined;
  try {
    const params = {
      name: deps.entry.name,
      arguments: (args ?? {}) as Record<string, unknown>,
      ...(token ? { _meta: { progressToken: token } } : {}),
    };
    // Our own deadline governs (it stops while the user is asked); the SDK's would fire at its
    // 60 s default, so it is set past any deadline.
    const result = await deps.client.callTool(params, {
      signal,
      timeout: SDK_TIMEOUT_MS,
      ...(deps.definition ? { toolDefinition: deps.definition } : {}),
    });
    if (result.isError === true) return fail("tool_error", `${toolName} failed: ${errorText(result)}`);
    const readResource: ReadResource = async (uri, s) => {
      if (!deps.client.getServerCapabilities()?.resources) return undefined;
      const res = await deps.client.readResource({ uri }, { signal: s, timeout: timeoutMs });
      const first = res.contents[0];
      if (!first) return undefined;
      const data = "text" in first ? new TextEncoder().encode(first.text) : Buffer.from(first.blob, "base64");
      return {
        data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
        ...(first.mimeType ? { mimeType: first.mimeType } : {}),
      };
    };
    const converted = await convertResult(result, {
      artifacts: deps.artifacts,
      owner: { userId: opts.userId, sessionId: opts.sessionId },
      source: `mcp:${deps.capabilityId}`,
      tool: deps.entry.name,
      readResource,
      signal,
    });
    const size = Buffer.byteLength(converted.content);
    if (size > DEFAULT_MAX_MESSAGE_BYTES)
      return fail(
        "transport",
        `${toolName} returned ${size} bytes of text, over the 16 MiB limit: return large data as a resource (it becomes an artifact)`,
      );
    return finish({ ok: true, ...converted });
  } catch (err) {
    if (signal.aborted) {
      const why = abortOutcome(signal, toolName, timeoutMs);
      return fail(why.code, why.message);
    }
    if (err instanceof CapabilityError) return fail(err.code, err.message);
    // Loaded already: the call went through a client the SDK made.
    const { ProtocolError, SdkError } = await loadMcpSdk();
    if (err instanceof SdkError) {
      if (String(err.code) === "REQUEST_TIMEOUT")
        return fail("timeout", `${toolName} did not finish within ${timeoutMs} ms (deadline exceeded)`);
      if (String(err.code) === "CONNECTION_CLOSED")
        return fail(
          "transport",
          `${toolName}: the connection to MCP server ${deps.capabilityId} closed during the call`,
        );
      return fail("transport", `${toolName}: MCP server ${deps.capabilityId} call failed: ${err.message}`);
    }
    if (err instanceof ProtocolError) return fail("tool_error", `${toolName} failed: ${err.message}`);
    return fail(
      "transport",
      `${toolName}: MCP server ${deps.capabilityId} call failed: ${err instanceof Error ? err.message : String(err)}`,
    );
  } finally {
    if (token) deps.progress.forget(token);
    if (timer !== opts.deadline) timer.clear();
    opts.signal?.removeEventListener("abort", onAbort);
  }
}
