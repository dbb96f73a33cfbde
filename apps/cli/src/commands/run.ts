import { toJson } from "@bufbuild/protobuf";
import { PipelineEventSchema, PipelineEventType } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import type { ApprovalNeeded } from "@palisade/protocol/types";
import { ApprovalDecision, SessionMode } from "@palisade/protocol/types";
import { randomUUID } from "node:crypto";
import { CliError, ExitCode } from "../cli/errors.js";
import type { CliIo } from "../cli/io.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { connectToEngine } from "../engine/connect.js";
import type { EngineClient, StartingEngine } from "../engine/connect.js";
import { describeRpcError, tooLargeLimit } from "../engine/errors.js";
import { tooLargeMessage } from "../format/message-limit.js";
import { resolveSessionId } from "../engine/sessions.js";
import { flag, hintCommand, listOption, pathsOf, startOptions, stringOption, workspaceOf } from "./common.js";
import { readKey } from "./prompt.js";
import { formatBytes, keyArgs } from "../tui/components/format.js";
import { callArgs, wrapText } from "../format/call-text.js";
import { jsonLine, shown } from "../format/terminal-text.js";
import { decisionWord } from "../format/decision.js";

/** One JSON object per event: `{"type":"LLM_TOKEN", ...the event as protobuf JSON}`. */
export function eventToJsonLine(ev: PipelineEvent): string {
  const json = toJson(PipelineEventSchema, ev) as Record<string, unknown>;
  const type = PipelineEventType[ev.eventType] ?? "UNSPECIFIED";
  delete json.eventType;
  return JSON.stringify({ type, ...json });
}

interface Printer {
  event(ev: PipelineEvent): void;
  note(text: string): void;
}

/** Everything it prints came from the model, a tool or the Engine: it goes out through `shown`. */
function humanPrinter(io: CliIo): Printer {
  let midLine = false;
  const line = (text: string): void => {
    if (midLine) io.stdout.write("\n");
    midLine = false;
    println(io.stdout, shown(text));
  };
  const names = new Map<string, string>();
  return {
    note: (text) => {
      if (midLine) io.stdout.write("\n");
      midLine = false;
      println(io.stderr, shown(text));
    },
    event(ev) {
      switch (ev.eventType) {
        case PipelineEventType.LLM_TOKEN: {
          const t = ev.llmToken;
          if (!t || t.subAgentName) return;
          io.stdout.write(shown(t.text));
          midLine = !t.text.endsWith("\n");
          return;
        }
        case PipelineEventType.ACTION_PROPOSED:
          if (ev.actionProposed)
            names.set(
              ev.actionProposed.callId,
              `${ev.actionProposed.toolName} ${keyArgs(ev.actionProposed.argumentsJson, 70)}`,
            );
          return;
        case PipelineEventType.SHIELD_VERDICT: {
          const v = ev.shieldVerdict;
          if (!v) return;
          line(
            `⏺ ${names.get(v.callId) ?? v.toolName} · shield ${decisionWord(v.decision)} (tier ${v.tier})${v.reason ? `: ${v.reason}` : ""}`,
          );
          return;
        }
        case PipelineEventType.ACTION_COMPLETED: {
          const a = ev.actionCompleted;
          if (!a) return;
          const arts = a.artifacts.length ? ` · artifacts: ${a.artifacts.map((x) => x.filename).join(", ")}` : "";
          line(
            `  ${a.success ? "✓" : "✗"} ${a.toolName} ${Number(a.durationMs)} ms${a.success ? (a.resultSummary ? ` → ${a.resultSummary.split("\n")[0]}` : "") : `: ${a.error || "failed"}`}${arts}`,
          );
          return;
        }
        case PipelineEventType.THOUGHT:
          // Reasoning is not part of the answer on stdout; notices (a rate-limit wait) are news.
          if (ev.thought?.stage === "notice" && !ev.thought.subAgentName) line(`  · ${ev.thought.text}`);
          return;
        case PipelineEventType.OTR_BLOCKED:
          line(`  ⊘ ${ev.otrBlocked?.toolName ?? "tool"} refused off the record: ${ev.otrBlocked?.reason ?? ""}`);
          return;
        case PipelineEventType.SUB_AGENT_SPAWNED:
        case PipelineEventType.SUB_AGENT_COMPLETED:
        case PipelineEventType.SUB_AGENT_FAILED:
          if (ev.subAgent)
            line(
              `  ◆ sub-agent ${ev.subAgent.name} ${ev.subAgent.state}${ev.subAgent.resultExcerpt ? ` → ${ev.subAgent.resultExcerpt}` : ""}${ev.subAgent.error ? `: ${ev.subAgent.error}` : ""}`,
            );
          return;
        default:
          return;
      }
    },
  };
}

function jsonPrinter(io: CliIo): Printer {
  return {
    event: (ev) => println(io.stdout, jsonLine(eventToJsonLine(ev))),
    note: (text) => println(io.stdout, jsonLine(JSON.stringify({ type: "NOTE", message: text }))),
  };
}

/**
 * What a terminal approval shows: the whole call, wrapped to `width` (never cut), a file write's
 * diff (cut with a count), why, and what `a` covers; with control characters made visible.
 */
export function approvalPrompt(
  a: Pick<ApprovalNeeded, "toolName" | "argumentsJson" | "reason" | "preview" | "grantScope">,
  maxDiffLines = 20,
  width = 100,
): string {
  // a file write's content is in its diff below; every other argument is shown whole
  const lines = wrapText(`? ${a.toolName} ${callArgs(a.argumentsJson, a.preview ? 120 : undefined)}`, width);
  if (a.preview) {
    const diff = a.preview.split("\n");
    lines.push(...diff.slice(0, maxDiffLines).map((l) => `  ${l}`));
    if (diff.length > maxDiffLines) lines.push(`  … ${diff.length - maxDiffLines} more lines`);
  }
  lines.push(...wrapText(`  the Shield asks because: ${a.reason || "policy"}`, width));
  lines.push(
    ...wrapText(
      `  [a] covers, for the rest of this session: ${a.grantScope || `${a.toolName} with exactly these arguments`}`,
      width,
    ),
  );
  return shown(lines.join("\n"));
}

export async function askApproval(io: CliIo, text: string, signal: AbortSignal): Promise<ApprovalDecision> {
  io.stderr.write(`${text}\n  allow? [y] once · [a] for this session · [n] deny: `);
  const answers: Record<string, [ApprovalDecision, string]> = {
    y: [ApprovalDecision.ALLOW_ONCE, "once"],
    a: [ApprovalDecision.ALLOW_SESSION, "this session"],
    n: [ApprovalDecision.DENY, "deny"],
    "": [ApprovalDecision.DENY, "deny"],
    "\u0003": [ApprovalDecision.DENY, "deny"],
  };
  for (;;) {
    const answer = answers[(await readKey(io, signal)).toLowerCase()];
    if (answer) {
      io.stderr.write(`${answer[1]}\n`);
      return answer[0];
    }
  }
}

/** `*` matches any run of characters; everything else is literal. */
export function toolGlobMatches(glob: string, tool: string): boolean {
  const re = new RegExp(
    `^${glob
      .split("*")
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  return re.test(tool);
}

export interface TurnOptions {
  json: boolean;
  /** A person can answer approvals at this terminal. */
  interactive: boolean;
  /** Tool globs whose escalated calls are approved once each without asking. */
  approve?: readonly string[];
  /** Spells a `palisade …` command for hints (default: as is). */
  hint?: (words: string) => string;
  signal?: AbortSignal;
}

/** Streams one turn; returns the exit code. Exported for tests. */
export async function runTurn(
  io: CliIo,
  client: EngineClient,
  request: { content: string; sessionId: string; otr: boolean; workspace: string },
  options: TurnOptions,
): Promise<number> {
  const hint = options.hint ?? ((w: string) => `palisade ${w}`);
  const out = options.json ? jsonPrinter(io) : humanPrinter(io);
  const abort = new AbortController();
  options.signal?.addEventListener("abort", () => abort.abort(), { once: true });
  let sessionId = request.sessionId;
  let messageId = "";
  let streamed = false;
  let code: number = ExitCode.FAILURE;
  const cancel = (): void => {
    if (sessionId && messageId)
      void client.cancelMessage({ sessionId, messageId }, { timeoutMs: 3000 }).catch(() => undefined);
  };
  options.signal?.addEventListener("abort", cancel, { once: true });
  try {
    const stream = client.sendMessage(
      {
        content: request.content,
        sessionId,
        mode: request.otr ? SessionMode.OTR : SessionMode.NORMAL,
        source: "cli-run",
        clientMessageId: randomUUID(),
        workspace: request.workspace,
      },
      { signal: abort.signal },
    );
    for await (const ev of stream) {
      sessionId = ev.sessionId || sessionId;
      messageId = ev.messageId || messageId;
      out.event(ev);
      if (ev.eventType === PipelineEventType.LLM_TOKEN && !ev.llmToken?.subAgentName) streamed = true;
      if (ev.eventType === PipelineEventType.APPROVAL_NEEDED && ev.approvalNeeded) {
        const a = ev.approvalNeeded;
        let decision = ApprovalDecision.DENY;
        let reason = "";
        const glob = options.approve?.find((g) => toolGlobMatches(g, a.toolName));
        if (glob !== undefined) {
          decision = ApprovalDecision.ALLOW_ONCE;
          reason = `approved by --approve ${glob}`;
          out.note(`approved ${a.toolName} (--approve ${glob}); the Shield asked because: ${a.reason || "policy"}`);
        } else if (options.interactive) {
          decision = await askApproval(
            io,
            approvalPrompt(a, 20, (io.stderr as NodeJS.WriteStream).columns || 100),
            abort.signal,
          );
        } else {
          decision = ApprovalDecision.UNATTENDED;
          reason = "no terminal";
          out.note(
            `not run: ${a.toolName} needs approval (${a.reason || "policy"}) and no one could approve (no terminal); approve it for scripts with --approve '${a.toolName}', or run in a terminal`,
          );
        }
        await client
          .resolveApproval({ approvalId: a.approvalId, decision, sessionId, reason }, { timeoutMs: 5000 })
          .catch((err: unknown) => out.note(`could not answer the approval: ${describeRpcError(err)}`));
      }
      if (ev.eventType === PipelineEventType.RESPONSE_COMPLETE) {
        if (!options.json) {
          if (!streamed && ev.responseComplete?.content) io.stdout.write(shown(ev.responseComplete.content));
          io.stdout.write("\n");
        }
        code = ExitCode.OK;
      } else if (ev.eventType === PipelineEventType.ERROR) {
        const e = ev.pipelineError;
        if (!options.json) out.note(`error: ${e?.message ?? "the turn failed"}${e?.code ? ` (${e.code})` : ""}`);
        code = ExitCode.FAILURE;
      } else if (ev.eventType === PipelineEventType.TURN_CANCELLED) {
        if (!options.json) out.note(`cancelled${ev.turnCancelled?.reason ? `: ${ev.turnCancelled.reason}` : ""}`);
        code = ExitCode.INTERRUPTED;
      }
    }
  } catch (err) {
    if (options.signal?.aborted) {
      continueHint();
      return ExitCode.INTERRUPTED;
    }
    continueHint();
    const limit = tooLargeLimit(err);
    if (limit !== undefined) {
      const bytes = Buffer.byteLength(request.content);
      throw new CliError(
        limit
          ? tooLargeMessage(bytes, limit)
          : `not sent: this message of ${formatBytes(bytes)} is over the Engine's limit per message; save the text as a file in the workspace and ask about that file instead`,
      );
    }
    throw new CliError(`the turn failed: ${describeRpcError(err)}`, { hint: `see '${hint("engine status")}'` });
  }
  continueHint();
  await endOffTheRecord();
  return code;

  // An off-the-record session this run started ends with it: its messages and artifacts, kept in
  // the Engine's memory only, are dropped now rather than when the Engine stops.
  async function endOffTheRecord(): Promise<void> {
    if (!request.otr || request.sessionId || !sessionId) return;
    await client
      .deleteSession({ sessionId }, { timeoutMs: 5000 })
      .catch((err: unknown) => out.note(`could not end the off-the-record session: ${describeRpcError(err)}`));
  }

  // The session id, whatever happened, so the user can continue or inspect it.
  function continueHint(): void {
    if (options.json || request.otr || !sessionId) return;
    println(
      io.stderr,
      `(session ${sessionId}: continue with '${hint(`run --session ${sessionId.slice(0, 12)} "…"`)}', see it with '${hint(`sessions show ${sessionId.slice(0, 12)}`)}')`,
    );
  }
}

/** `palisade run` once the prompt is read and the Engine (when none ran) is starting: see run-command.ts. */
export async function runPrompt(
  ctx: CommandContext,
  content: string,
  starting: StartingEngine | undefined,
): Promise<number> {
  const paths = pathsOf(ctx);
  const conn = await connectToEngine(paths, { ...startOptions(ctx), ...(starting ? { starting } : {}) });
  const sigint = new AbortController();
  const onSigint = (): void => sigint.abort();
  process.once("SIGINT", onSigint);
  try {
    if (!conn.status.modelConfigured) {
      throw new CliError("no model is configured", {
        hint: `set OPENAI_API_KEY (and OPENAI_BASE_URL / PALISADE_MODEL), or see '${hintCommand(ctx, "chat")}' for the setup screen`,
      });
    }
    const session = stringOption(ctx, "session");
    const hint = (w: string): string => hintCommand(ctx, w);
    const sessionId = session ? await resolveSessionId(conn.client, session, hint) : "";
    // Approvals are asked only when a person is at the keyboard; a prompt piped in leaves no one to ask.
    const interactive = Boolean(ctx.io.stdin.isTTY) && !(ctx.positionals.length === 0 || ctx.positionals[0] === "-");
    return await runTurn(
      ctx.io,
      conn.client,
      { content, sessionId, otr: flag(ctx, "otr"), workspace: workspaceOf(ctx) },
      { json: flag(ctx, "json"), interactive, approve: listOption(ctx, "approve"), hint, signal: sigint.signal },
    );
  } finally {
    process.off("SIGINT", onSigint);
    conn.close();
  }
}
