// `palisade capability call` for a configured tool: the Engine runs it (ClientService.CallTool)
// on the path every tool call takes, so it is judged with the tool's schema and semantics like a
// model's call, and audited. Approvals are answered here as `run` answers them. Without a running
// Engine one is started for the call and stopped after it.
import { PipelineEventType } from "@palisade/protocol/pipeline";
import type { CallToolResult } from "@palisade/protocol/pipeline";
import { ApprovalDecision } from "@palisade/protocol/types";
import type { ApprovalNeeded } from "@palisade/protocol/types";
import { CliError, ExitCode, UsageError } from "../cli/errors.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { connectToEngine, killSpawnedEngine } from "../engine/connect.js";
import type { EngineClient } from "../engine/connect.js";
import { describeRpcError } from "../engine/errors.js";
import { resolveSessionId } from "../engine/sessions.js";
import { jsonLine } from "../format/terminal-text.js";
import { decisionWord } from "../format/decision.js";
import { downloadArtifact } from "./artifacts.js";
import { ensureOutDir } from "./artifact-files.js";
import { flag, hintCommand, pathsOf, startOptions, stringOption, workspaceOf } from "./common.js";
import { approvalPrompt, askApproval } from "./run.js";
import { resolve } from "node:path";

/** Exit codes of a call the Shield blocked, and of one that waited for an approval no one gave. */
const BLOCKED = 2;
const NOT_APPROVED = 3;

async function answer(
  ctx: CommandContext,
  client: EngineClient,
  a: ApprovalNeeded,
  sessionId: string,
  signal: AbortSignal,
): Promise<void> {
  let decision = ApprovalDecision.UNATTENDED;
  let reason = "no terminal";
  if (flag(ctx, "yes")) {
    decision = ApprovalDecision.ALLOW_ONCE;
    reason = "approved by --yes";
  } else if (ctx.io.stdin.isTTY) {
    decision = await askApproval(
      ctx.io,
      approvalPrompt(a, 20, (ctx.io.stderr as NodeJS.WriteStream).columns || 100),
      signal,
    );
    reason = "";
  }
  await client
    .resolveApproval({ approvalId: a.approvalId, decision, sessionId, reason }, { timeoutMs: 5000 })
    .catch((err: unknown) => println(ctx.io.stderr, `could not answer the approval: ${describeRpcError(err)}`));
}

function timeoutOf(ctx: CommandContext): number | undefined {
  const timeout = stringOption(ctx, "timeout");
  const ms = timeout === undefined ? undefined : Number(timeout);
  if (ms !== undefined && !(Number.isInteger(ms) && ms > 0))
    throw new UsageError(`--timeout must be a positive number of milliseconds, got '${timeout}'`);
  return ms;
}

/** Runs `name` with `args` in the Engine; returns the exit code. */
export { timeoutOf };

export async function callThroughEngine(ctx: CommandContext, name: string, args: unknown): Promise<number> {
  const ms = timeoutOf(ctx);
  const conn = await connectToEngine(pathsOf(ctx), startOptions(ctx));
  const abort = new AbortController();
  const timer = ms ? setTimeout(() => abort.abort(new Error(`--timeout ${ms} ms passed`)), ms) : undefined;
  try {
    const session = stringOption(ctx, "session");
    let sessionId = session ? await resolveSessionId(conn.client, session, (w) => hintCommand(ctx, w)) : "";
    let result: CallToolResult | undefined;
    const stream = conn.client.callTool(
      { sessionId, toolName: name, argumentsJson: JSON.stringify(args), workspace: workspaceOf(ctx) },
      { signal: abort.signal },
    );
    for await (const r of stream) {
      if (r.payload.case === "result") result = r.payload.value;
      if (r.payload.case !== "event") continue;
      const ev = r.payload.value;
      sessionId = ev.sessionId || sessionId;
      if (ev.eventType === PipelineEventType.SHIELD_VERDICT && ev.shieldVerdict) {
        const v = ev.shieldVerdict;
        println(
          ctx.io.stderr,
          `shield ${decisionWord(v.decision)} (tier ${v.tier}, policy ${conn.status.policyName}): ${v.reason}`,
        );
      }
      if (ev.eventType === PipelineEventType.APPROVAL_NEEDED && ev.approvalNeeded)
        await answer(ctx, conn.client, ev.approvalNeeded, sessionId, abort.signal);
    }
    if (!result)
      throw new CliError(`the Engine ended the call to ${name} without a result`, {
        hint: `its log: ${hintCommand(ctx, "engine status")}`,
      });
    return await report(ctx, result, (artifactId, dir) =>
      downloadArtifact(conn.client, result.sessionId, artifactId, dir),
    );
  } finally {
    if (timer) clearTimeout(timer);
    // An Engine started for this one call does not outlive it.
    if (conn.startedHere) {
      await conn.client.shutdown({ deadlineMs: 5000 }, { timeoutMs: 10_000 }).catch(() => undefined);
      // gone before the command ends: the next command starts its own, not connects to this one going away
      await killSpawnedEngine(conn.endpoint.info.pid, 10_000);
    }
    conn.close();
  }
}

/** What a call came to, in the Engine or in this process. */
export interface CallOutcome {
  toolName: string;
  content: string;
  isError: boolean;
  errorCode: string;
  errorMessage: string;
  ran: boolean;
  sessionId: string;
  artifacts: { artifactId: string; filename: string; mimeType: string; sizeBytes: number | bigint }[];
}

/** Prints the outcome (and saves its artifacts with --out); returns the exit code. */
export async function report(
  ctx: CommandContext,
  result: CallOutcome,
  save: (artifactId: string, dir: string) => Promise<string>,
): Promise<number> {
  const code = result.errorCode;
  if (code === "unknown_tool") {
    throw new CliError(result.content.replace(/ Load the tool's group.*$/, ""), {
      hint: `every tool and its health: ${hintCommand(ctx, "capability list")}`,
    });
  }
  if (code === "invalid_arguments")
    throw new CliError(result.content.replace(/ Fix them and call the tool again\.$/, ""), {
      hint: `the schema is in the manifest of ${result.toolName.split("__")[0] ?? result.toolName}`,
    });
  if (code === "blocked") return BLOCKED;
  if (code === "declined") {
    println(
      ctx.io.stderr,
      `not run: the Shield asks for approval; re-run with --yes to approve ${result.toolName}${ctx.io.stdin.isTTY ? "" : " (no terminal to ask in)"}`,
    );
    return NOT_APPROVED;
  }
  if (!result.ran) throw new CliError(`${result.toolName} did not run: ${result.content}`);
  const out = stringOption(ctx, "out");
  const saved: string[] = [];
  if (out) {
    const dir = resolve(ctx.io.cwd, out);
    await ensureOutDir(dir);
    for (const a of result.artifacts) saved.push(await save(a.artifactId, dir));
  }
  if (flag(ctx, "json")) {
    const artifacts = result.artifacts.map((a) => ({
      artifactId: a.artifactId,
      filename: a.filename,
      mimeType: a.mimeType,
      sizeBytes: Number(a.sizeBytes),
    }));
    const error = result.isError ? { error: result.errorMessage, errorCode: result.errorCode } : {};
    println(
      ctx.io.stdout,
      jsonLine(
        JSON.stringify(
          { ok: !result.isError, content: result.content, artifacts, saved, sessionId: result.sessionId, ...error },
          null,
          2,
        ),
      ),
    );
  } else {
    // a tool's or server's output: JSON stays JSON, text is shown with its controls made visible
    println(ctx.io.stdout, jsonLine(result.content));
    for (const p of saved) println(ctx.io.stdout, `saved ${p}`);
    if (!out)
      for (const a of result.artifacts)
        println(ctx.io.stderr, `artifact ${a.filename} (${a.artifactId}): add --out DIR to save it`);
  }
  return result.isError ? ExitCode.FAILURE : ExitCode.OK;
}
