import type { Elicit } from "./mcp/elicit.js";
import { Deadline } from "./deadline.js";
import { Code, DEFAULT_MAX_MESSAGE_BYTES, RpcError } from "@palisade/protocol";
import { findInputAttachments, findOutputArtifacts, rewriteInput, rewriteOutput } from "./artifacts/rewrite.js";
import type { ArtifactRef, UploadedAttachment } from "./artifacts/rewrite.js";
import { artifactNotFound } from "./artifacts/store.js";
import type { ArtifactOwner, ArtifactStore } from "./artifacts/store.js";
import { downloadArtifact, guessMimeType, uploadArtifact } from "./artifacts/transfer.js";
import type { CapabilityClient } from "./artifacts/transfer.js";
import { argumentProblems } from "./catalog.js";
import type { ToolEntry } from "./catalog.js";
import { resolveCredentials } from "./credentials.js";
import type { CredentialSource, SecretRedactor } from "./credentials.js";
import { CapabilityError } from "./errors.js";
import type { CapabilityErrorCode } from "./errors.js";
import type { Manifest } from "./manifest/types.js";

export const DEFAULT_INVOKE_TIMEOUT_MS = 120_000;

/** How long after the call's deadline its RPCs' own gRPC deadline passes. */
const RPC_DEADLINE_GRACE_MS = 1000;

export interface InvokeOptions {
  sessionId: string;
  userId: string;
  threadId?: string;
  signal?: AbortSignal;
  /** Overrides the tool's deadline (config perToolTimeoutMs, timeoutMs, else 120 s). */
  timeoutMs?: number;
  /**
   * The caller's deadline for the call (the Engine's tool time limit): the call runs under it
   * instead of arming its own, tightened to the tool's deadline when that is shorter. Its expiry
   * is the caller's to signal (on `signal`).
   */
  deadline?: Deadline;
  /** When set, the call uses StreamInvoke and reports each chunk's text as it arrives. */
  onChunk?: (text: string) => void;
  /**
   * The session's workspace directory. Sent as `workspace` in config_json, and only to
   * capabilities whose manifest declares `filesystem: workspace`; others never learn it.
   */
  workspace?: string;
  /**
   * MCP servers: asks the user what a server wants to know during the call (elicitation, form
   * mode). Absent (no one to ask, e.g. `run` without a terminal): the server is told "declined".
   */
  elicit?: Elicit;
}

/** The outcome of a call; failures are data for the model, never thrown. */
export interface InvokeResult {
  ok: boolean;
  /** What the model sees: the rewritten result as JSON text, plain text, or the error message. */
  content: string;
  /** Parsed JSON (rewritten for artifacts), or the text when the result is not JSON. */
  result: unknown;
  artifacts: ArtifactRef[];
  error?: { code: CapabilityErrorCode; message: string };
  /** ok && the tool's terminal_on_success: the agent loop may end the turn. */
  terminal: boolean;
  durationMs: number;
}

/** A call that failed before it reached the capability: nothing ran, no time passed. */
export function failedCall(code: CapabilityErrorCode, message: string): InvokeResult {
  return {
    ok: false,
    content: message,
    result: undefined,
    artifacts: [],
    error: { code, message },
    terminal: false,
    durationMs: 0,
  };
}

export interface InvokeDeps {
  entry: ToolEntry;
  manifest: Manifest;
  client: CapabilityClient;
  defaultTimeoutMs: number;
  credentials: CredentialSource;
  artifacts: ArtifactStore;
  redactor: SecretRedactor;
  extraConfig: Record<string, unknown>;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** One tool call: arguments, credentials, input artifacts, Invoke, output artifacts. */
/**
 * Why an aborted call stopped: its own deadline, or the caller's (the Engine's
 * limits.tool_timeout_s, an AbortSignal.timeout) — both timeouts, not cancels — or a cancel.
 */
export function abortOutcome(
  signal: AbortSignal,
  toolName: string,
  timeoutMs: number,
): { code: "timeout" | "cancelled" | "restarted"; message: string } {
  const reason: unknown = signal.reason;
  // The process was killed under the call (it stopped answering, or another call overran its deadline).
  if (reason instanceof CapabilityError && reason.code === "restarted")
    return { code: "restarted", message: `${toolName} failed: ${reason.message}` };
  if (reason instanceof CapabilityError && reason.code === "timeout")
    return { code: "timeout", message: `${toolName} did not finish within ${timeoutMs} ms (deadline exceeded)` };
  if (reason instanceof DOMException && reason.name === "TimeoutError")
    return { code: "timeout", message: `${toolName} was stopped: ${reason.message} (deadline exceeded)` };
  return { code: "cancelled", message: `${toolName} was cancelled` };
}

/**
 * The one deadline a call runs under: the caller's, brought forward to the tool's own limit of
 * `ownMs` when that is sooner (then `onOwnExpire` runs when it passes), or a new one of `ownMs`
 * without a caller's. `timeoutMs` is the limit that applies, for the error that names it.
 */
export function callDeadline(
  ownMs: number,
  onOwnExpire: () => void,
  given: Deadline | undefined,
): { deadline: Deadline; timeoutMs: number } {
  if (!given) return { deadline: new Deadline(ownMs, onOwnExpire), timeoutMs: ownMs };
  if (given.tighten(ownMs, onOwnExpire)) return { deadline: given, timeoutMs: ownMs };
  return { deadline: given, timeoutMs: Math.ceil(given.remaining()) };
}

export async function invokeTool(deps: InvokeDeps, args: unknown, opts: InvokeOptions): Promise<InvokeResult> {
  const started = performance.now();
  const finish = (r: Omit<InvokeResult, "durationMs" | "terminal">): InvokeResult => ({
    ...r,
    content: deps.redactor.redact(r.content),
    terminal: r.ok && deps.entry.terminalOnSuccess,
    durationMs: performance.now() - started,
  });
  const fail = (code: CapabilityErrorCode, message: string): InvokeResult =>
    finish({
      ok: false,
      content: deps.redactor.redact(message),
      result: undefined,
      artifacts: [],
      error: { code, message: deps.redactor.redact(message) },
    });

  const controller = new AbortController();
  const { deadline, timeoutMs } = callDeadline(
    opts.timeoutMs ?? deps.defaultTimeoutMs,
    () => controller.abort(new CapabilityError("timeout", "deadline")),
    opts.deadline,
  );
  const onAbort = (): void => controller.abort(opts.signal?.reason);
  if (opts.signal?.aborted) onAbort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  // The RPCs' own deadline trails the call's, so the call's timer is what cuts it and its
  // error names the limit that applied (the caller's or the tool's), not a race between the two.
  const remaining = (): number => Math.max(1, deadline.remaining()) + RPC_DEADLINE_GRACE_MS;
  const signal = controller.signal;
  const owner: ArtifactOwner = { userId: opts.userId, sessionId: opts.sessionId };
  const toolName = deps.entry.fullName;

  try {
    const problems = argumentProblems(toolName, deps.entry.inputSchema, args);
    if (problems.length > 0) return fail("invalid_arguments", `invalid arguments: ${problems.join("; ")}`);

    // Without credentials or attachments nothing here waits: the call starts within this
    // function, not a few promise turns later behind whatever the caller queues meanwhile.
    const secrets =
      deps.manifest.credentials.length === 0
        ? {}
        : await resolveCredentials(deps.manifest, deps.credentials, opts.userId);
    for (const v of Object.values(secrets)) deps.redactor.add(v);
    const configJson = enc.encode(JSON.stringify({ ...deps.extraConfig, ...secrets }));

    const attachments = findInputAttachments(args);
    const finalArgs =
      attachments.length === 0 ? args : await prepareInputs(deps, args, attachments, owner, signal, remaining);
    const argsJson = enc.encode(JSON.stringify(finalArgs ?? {}));
    if (argsJson.byteLength > DEFAULT_MAX_MESSAGE_BYTES) {
      return fail(
        "invalid_arguments",
        `arguments for ${toolName} are ${argsJson.byteLength} bytes, over the 16 MiB message limit: pass large data as an artifact`,
      );
    }
    const request = {
      toolName: deps.entry.name,
      argsJson,
      configJson,
      sessionId: opts.sessionId,
      capabilityId: deps.manifest.id,
      threadId: opts.threadId ?? "",
    };
    const reply = opts.onChunk
      ? await callStreaming(deps.client, request, signal, remaining, opts.onChunk)
      : await callUnary(deps.client, request, signal, remaining);
    if (reply.error) return fail("tool_error", `${toolName} failed: ${reply.error}`);

    const text = dec.decode(reply.bytes);
    let result: unknown = text;
    try {
      result = text.trim() === "" ? null : JSON.parse(text);
    } catch {
      return finish({ ok: true, content: text, result: text, artifacts: [] });
    }
    const { rewritten, artifacts } = await collectOutputs(deps, result, owner, signal, remaining);
    return finish({ ok: true, content: JSON.stringify(rewritten), result: rewritten, artifacts });
  } catch (err) {
    if (signal.aborted) {
      const why = abortOutcome(signal, toolName, timeoutMs);
      return fail(why.code, why.message);
    }
    if (err instanceof CapabilityError) return fail(err.code, err.message);
    const e = RpcError.from(err);
    if (e.code === Code.RESOURCE_EXHAUSTED)
      return fail(
        "transport",
        `${toolName}: message over the 16 MiB limit (${e.message}): return large data as an artifact`,
      );
    if (e.code === Code.DEADLINE_EXCEEDED)
      return fail("timeout", `${toolName} did not finish within ${timeoutMs} ms (deadline exceeded)`);
    return fail("transport", `${toolName}: capability ${deps.manifest.id} call failed: ${e.codeName}: ${e.message}`);
  } finally {
    if (deadline !== opts.deadline) deadline.clear();
    opts.signal?.removeEventListener("abort", onAbort);
  }
}

type Request = Parameters<CapabilityClient["invoke"]>[0];
type Reply = { bytes: Uint8Array; error: string };

async function callUnary(
  client: CapabilityClient,
  request: Request,
  signal: AbortSignal,
  remaining: () => number,
): Promise<Reply> {
  const res = await client.invoke(request, { signal, timeoutMs: remaining() });
  return { bytes: res.resultJson, error: res.error };
}

/** After the done chunk, how long a server may take to end the stream before it is cancelled. */
const STREAM_END_GRACE_MS = 1000;

/** StreamInvoke; falls back to Invoke for servers that do not implement it. */
async function callStreaming(
  client: CapabilityClient,
  request: Request,
  signal: AbortSignal,
  remaining: () => number,
  onChunk: (t: string) => void,
): Promise<Reply> {
  const parts: Uint8Array[] = [];
  let size = 0;
  // Read to the end of the stream even after `done`: leaving the loop early cancels the call,
  // and a connection that sees a reset per call is closed by the server's rapid-reset guard
  // after ~1000 calls. A server that never ends the stream is cancelled after a short grace.
  const afterDone = new AbortController();
  let grace: NodeJS.Timeout | undefined;
  let done = false;
  try {
    for await (const chunk of client.streamInvoke(request, {
      signal: AbortSignal.any([signal, afterDone.signal]),
      timeoutMs: remaining(),
    })) {
      if (done) continue;
      if (chunk.error) return { bytes: new Uint8Array(), error: chunk.error };
      if (chunk.data.byteLength > 0) {
        parts.push(chunk.data);
        size += chunk.data.byteLength;
        if (size > DEFAULT_MAX_MESSAGE_BYTES)
          throw new CapabilityError(
            "transport",
            "streamed result is over the 16 MiB limit: return large data as an artifact",
          );
        onChunk(dec.decode(chunk.data));
      }
      if (chunk.done) {
        done = true;
        grace = setTimeout(() => afterDone.abort(), STREAM_END_GRACE_MS);
      }
    }
  } catch (err) {
    if (!(done && afterDone.signal.aborted)) {
      if (RpcError.from(err).code === Code.UNIMPLEMENTED && parts.length === 0)
        return callUnary(client, request, signal, remaining);
      throw err;
    }
  } finally {
    clearTimeout(grace);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.byteLength;
  }
  return { bytes, error: "" };
}

async function prepareInputs(
  deps: InvokeDeps,
  args: unknown,
  found: ReturnType<typeof findInputAttachments>,
  owner: ArtifactOwner,
  signal: AbortSignal,
  remaining: () => number,
): Promise<unknown> {
  const uploaded = new Map<number, UploadedAttachment>();
  for (const a of found) {
    const stored = await deps.artifacts.read(a.artifactId, owner);
    if (!stored) {
      if (a.via === "capability_artifact_id") continue; // the capability's own id: pass through
      throw artifactNotFound(a.artifactId);
    }
    const { meta, data } = stored;
    const capabilityArtifactId = await uploadArtifact(
      deps.client,
      deps.manifest.id,
      { data, filename: meta.filename, mimeType: meta.mimeType },
      { signal, timeoutMs: remaining() },
    );
    uploaded.set(a.index, {
      capabilityArtifactId,
      filename: meta.filename,
      mimeType: meta.mimeType,
      sizeBytes: meta.sizeBytes,
    });
  }
  return rewriteInput(args, uploaded);
}

async function collectOutputs(
  deps: InvokeDeps,
  result: unknown,
  owner: ArtifactOwner,
  signal: AbortSignal,
  remaining: () => number,
): Promise<{ rewritten: unknown; artifacts: ArtifactRef[] }> {
  const sources = findOutputArtifacts(result);
  if (sources.length === 0) return { rewritten: result, artifacts: [] };
  const stored = new Map<string, ArtifactRef>();
  for (const src of sources) {
    const file = await downloadArtifact(
      deps.client,
      deps.manifest.id,
      src.capabilityArtifactId,
      deps.artifacts.maxBytes,
      { signal, timeoutMs: remaining() },
    );
    const filename = file.filename || src.filename || src.capabilityArtifactId;
    const mimeType = file.mimeType || src.mimeType || guessMimeType(filename);
    const meta = await deps.artifacts.put(file.data, {
      filename,
      mimeType,
      owner,
      source: `capability:${deps.manifest.id}`,
    });
    stored.set(src.capabilityArtifactId, {
      artifactId: meta.artifactId,
      filename,
      mimeType,
      sizeBytes: meta.sizeBytes,
    });
  }
  return { rewritten: rewriteOutput(result, stored), artifacts: [...stored.values()] };
}
