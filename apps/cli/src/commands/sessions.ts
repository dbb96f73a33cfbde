import { stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { toJson } from "@bufbuild/protobuf";
import { ChatMessageSchema, SessionInfoSchema } from "@palisade/protocol/types";
import type { ChatMessage } from "@palisade/protocol/types";
import { SearchHitSchema } from "@palisade/protocol/pipeline";
import { inTextOrder } from "@palisade/store/text-order";
import { CliError, ExitCode, UsageError } from "../cli/errors.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { connectToEngine } from "../engine/connect.js";
import type { EngineConnection } from "../engine/connect.js";
import { describeRpcError } from "../engine/errors.js";
import { openLocalHistory } from "../engine/local-history.js";
import type { HistoryClient } from "../engine/local-history.js";
import { resolveSessionId } from "../engine/sessions.js";
import { flag, hintCommand, intOption, pathsOf, shellQuote, startOptions, stringOption } from "./common.js";
import { confirm } from "./prompt.js";
import { jsonLine, shown, shownLine } from "../format/terminal-text.js";
import { decisionWord } from "../format/decision.js";
import { storedApprovalWords } from "@palisade/shield/words";

/** An Engine this command had to start stays (the next command is quick): said, with how to stop it. */
function sayStillRunning(ctx: CommandContext, conn: EngineConnection): void {
  if (!conn.startedHere) return;
  println(
    ctx.io.stderr,
    `(the Engine started for this command keeps running, pid ${conn.endpoint.info.pid}, so the next one is quick; '${hintCommand(ctx, "engine stop")}' stops it)`,
  );
}

async function withEngine<T>(ctx: CommandContext, f: (conn: EngineConnection) => Promise<T>): Promise<T> {
  const conn = await connectToEngine(pathsOf(ctx), startOptions(ctx));
  try {
    return await f(conn);
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(describeRpcError(err), { hint: `see '${hintCommand(ctx, "engine status")}'` });
  } finally {
    conn.close();
    sayStillRunning(ctx, conn);
  }
}

/**
 * list, show and search: through the Engine, or, when none can start (a broken policy or config
 * file), from the data directory's database, read-only: reading history needs no policy.
 */
async function withHistory<T>(ctx: CommandContext, f: (client: HistoryClient) => Promise<T>): Promise<T> {
  let conn: EngineConnection;
  try {
    conn = await connectToEngine(pathsOf(ctx), startOptions(ctx));
  } catch (err) {
    const local =
      err instanceof CliError ? await openLocalHistory(pathsOf(ctx).dataDir).catch(() => undefined) : undefined;
    if (!local || !(err instanceof CliError)) throw err;
    println(ctx.io.stderr, `palisade: ${err.message}${err.hint ? `\n  ${err.hint}` : ""}`);
    println(ctx.io.stderr, `(no Engine: reading the history from ${local.database}, read-only)`);
    try {
      return await f(local.client);
    } finally {
      local.close();
    }
  }
  try {
    return await f(conn.client);
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(describeRpcError(err), { hint: `see '${hintCommand(ctx, "engine status")}'` });
  } finally {
    conn.close();
    sayStillRunning(ctx, conn);
  }
}

function date(ms: bigint): string {
  return ms ? new Date(Number(ms)).toISOString().replace("T", " ").slice(0, 16) : "";
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  return (
    rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ")).join("\n") + "\n"
  );
}

export async function sessionsList(ctx: CommandContext): Promise<number> {
  return withHistory(ctx, async (client) => {
    const res = await client.listSessions({
      limit: intOption(ctx, "limit", 20),
      offset: intOption(ctx, "offset", 0),
      titleFilter: stringOption(ctx, "filter") ?? "",
    });
    if (flag(ctx, "json")) {
      println(
        ctx.io.stdout,
        jsonLine(JSON.stringify({ total: res.total, sessions: res.sessions.map((s) => toJson(SessionInfoSchema, s)) })),
      );
      return ExitCode.OK;
    }
    if (res.sessions.length === 0) {
      println(
        ctx.io.stdout,
        res.total
          ? "No sessions on this page."
          : `No stored sessions yet. Start one with '${hintCommand(ctx, "chat")}'.`,
      );
      return ExitCode.OK;
    }
    const rows = [
      ["ID", "UPDATED", "MSGS", "TITLE"],
      ...res.sessions.map((s) => [
        s.id.slice(0, 12),
        date(s.updatedAtUnixMs),
        String(s.messageCount),
        shownLine(s.title) || "(untitled)",
      ]),
    ];
    ctx.io.stdout.write(table(rows));
    if (res.total > res.sessions.length)
      println(ctx.io.stdout, `(${res.sessions.length} of ${res.total}; --offset/--limit for more)`);
    return ExitCode.OK;
  });
}

/** A plain-text transcript: one block per message, tool calls with their verdicts. */
export function formatTranscript(messages: ChatMessage[]): string {
  const out: string[] = [];
  for (const m of messages) {
    // Text and tool calls in the order they happened (each call knows how much text came before it).
    for (const p of inTextOrder(m.content, m.toolCalls)) {
      if (p.kind === "text") {
        const text = m.toolCalls.length > 0 ? p.text.trim() : p.text;
        if (text) out.push(`${m.role}: ${text}`, "");
        continue;
      }
      const c = p.call;
      const v = c.verdict
        ? ` · shield ${decisionWord(c.verdict.decision)} tier ${c.verdict.tier}${c.verdict.reason ? `: ${c.verdict.reason}` : ""}`
        : "";
      out.push(
        `  [tool] ${c.toolName} ${c.argumentsJson}${v}${c.approval ? ` · approval ${storedApprovalWords(c.approval)}` : ""}`,
      );
      if (c.result)
        out.push(
          `         ${c.isError ? "error" : "→"} ${c.result.split("\n")[0]}${c.resultTrust ? ` · labelled ${c.resultTrust}` : ""}`,
        );
      for (const a of c.artifacts) out.push(`         artifact ${a.filename} (${a.mimeType}, ${a.sizeBytes} bytes)`);
    }
  }
  return out.join("\n") + "\n";
}

export async function sessionsShow(ctx: CommandContext): Promise<number> {
  return withHistory(ctx, async (client) => {
    const id = await resolveSessionId(client, ctx.positionals[0] as string, (w) => hintCommand(ctx, w));
    const pages: ChatMessage[][] = [];
    let cursor = "";
    let session;
    do {
      const res = await client.getHistory({ sessionId: id, limit: 200, cursor });
      session = res.session ?? session;
      pages.unshift(res.messages);
      cursor = res.nextCursor;
    } while (cursor);
    const messages = pages.flat();
    if (flag(ctx, "json")) {
      println(
        ctx.io.stdout,
        jsonLine(
          JSON.stringify({
            session: session ? toJson(SessionInfoSchema, session) : { id },
            messages: messages.map((m) => toJson(ChatMessageSchema, m)),
          }),
        ),
      );
      return ExitCode.OK;
    }
    println(ctx.io.stdout, `# ${shownLine(session?.title || id)}  (${id}, ${messages.length} messages)`);
    println(ctx.io.stdout);
    ctx.io.stdout.write(shown(formatTranscript(messages)));
    return ExitCode.OK;
  });
}

export async function sessionsSearch(ctx: CommandContext): Promise<number> {
  const query = ctx.positionals.join(" ");
  return withHistory(ctx, async (client) => {
    const session = stringOption(ctx, "session");
    const sessionId = session ? await resolveSessionId(client, session, (w) => hintCommand(ctx, w)) : "";
    const res = await client.searchSessions({ query, limit: intOption(ctx, "limit", 20), sessionId });
    if (flag(ctx, "json")) {
      println(
        ctx.io.stdout,
        jsonLine(JSON.stringify({ total: res.total, hits: res.hits.map((h) => toJson(SearchHitSchema, h)) })),
      );
      return ExitCode.OK;
    }
    if (res.hits.length === 0) {
      println(ctx.io.stdout, `Nothing matches “${query}”.`);
      return ExitCode.OK;
    }
    for (const h of res.hits) {
      println(
        ctx.io.stdout,
        `${h.sessionId.slice(0, 12)}  ${date(h.createdAtUnixMs)}  ${shownLine(h.sessionTitle) || "(untitled)"} · ${h.callId ? `tool call ${shownLine(h.toolName || h.callId)}` : h.role}`,
      );
      println(ctx.io.stdout, `    ${shownLine(h.snippet.replace(/\s+/g, " "))}`);
    }
    if (res.total > res.hits.length)
      println(ctx.io.stdout, `(${res.hits.length} of ${res.total} hits; --limit for more)`);
    return ExitCode.OK;
  });
}

export async function sessionsExport(ctx: CommandContext): Promise<number> {
  const format = stringOption(ctx, "format") ?? "md";
  if (format !== "md" && format !== "json") throw new UsageError(`--format must be md or json, got '${format}'`);
  return withEngine(ctx, async ({ client }) => {
    const id = await resolveSessionId(client, ctx.positionals[0] as string, (w) => hintCommand(ctx, w));
    const res = await client.exportSession({ sessionId: id, format }, { timeoutMs: 60_000 });
    // Markdown is read in a terminal or an editor: control characters visible; JSON keeps its values
    res.content = format === "md" ? shown(res.content) : jsonLine(res.content);
    const out = stringOption(ctx, "out");
    if (!out) {
      ctx.io.stdout.write(res.content.endsWith("\n") ? res.content : `${res.content}\n`);
      return ExitCode.OK;
    }
    const file = resolve(ctx.io.cwd, out);
    await writeExport(file, res.content, flag(ctx, "force"));
    println(ctx.io.stderr, `Exported ${id} to ${file} (${Buffer.byteLength(res.content)} bytes).`);
    return ExitCode.OK;
  });
}

const isDirectory = (path: string): Promise<boolean> =>
  stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );

/**
 * Writes an export, never over an existing file unless `force` (as /save in the chat); a missing
 * directory, a directory in the way or no permission is said plainly.
 */
async function writeExport(file: string, content: string, force: boolean): Promise<void> {
  try {
    await writeFile(file, content, { flag: force ? "w" : "wx" });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const dir = dirname(file);
    if (code === "EEXIST" && !(await isDirectory(file)))
      throw new CliError(`not exported: ${file} already exists`, {
        hint: "add --force to overwrite it, or give --out another file",
      });
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new CliError(`cannot write ${file}: the directory ${dir} does not exist`, {
        hint: `create it (mkdir -p ${shellQuote(dir)}) or give --out a file in an existing directory`,
      });
    }
    if (code === "EACCES" || code === "EPERM" || code === "EROFS") {
      throw new CliError(`cannot write ${file}: permission denied`, {
        hint: "give --out a file in a directory you can write to",
      });
    }
    if (code === "EISDIR" || code === "EEXIST")
      throw new CliError(`cannot write ${file}: it is a directory`, {
        hint: `give --out a file name, e.g. ${shellQuote(join(file, "session.md"))}`,
      });
    throw new CliError(`cannot write ${file}: ${(err as Error).message}`);
  }
}

export async function sessionsRename(ctx: CommandContext): Promise<number> {
  const title = ctx.positionals.slice(1).join(" ").trim();
  if (!title) throw new UsageError("the new title is empty");
  return withEngine(ctx, async ({ client }) => {
    const id = await resolveSessionId(client, ctx.positionals[0] as string, (w) => hintCommand(ctx, w));
    const res = await client.renameSession({ sessionId: id, title });
    println(ctx.io.stdout, `Renamed ${id} to “${res.session?.title ?? title}”.`);
    return ExitCode.OK;
  });
}

export async function sessionsDelete(ctx: CommandContext): Promise<number> {
  return withEngine(ctx, async ({ client }) => {
    const id = await resolveSessionId(client, ctx.positionals[0] as string, (w) => hintCommand(ctx, w));
    if (!flag(ctx, "yes")) {
      if (!ctx.io.stdin.isTTY)
        throw new UsageError(
          `refusing to delete ${id} without confirmation`,
          "add --yes when running without a terminal",
        );
      if (!(await confirm(ctx.io, `Delete session ${id} with its messages and artifacts? [y/N] `))) {
        println(ctx.io.stdout, "Kept it.");
        return ExitCode.OK;
      }
    }
    const res = await client.deleteSession({ sessionId: id });
    if (!res.deleted)
      throw new CliError(`the Engine did not delete ${id}`, {
        hint: `it may already be gone: '${hintCommand(ctx, "sessions list")}'`,
      });
    println(ctx.io.stdout, `Deleted ${id}.`);
    return ExitCode.OK;
  });
}
