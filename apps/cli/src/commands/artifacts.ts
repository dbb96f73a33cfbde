// `palisade artifacts list|save`: the files tools produced (a PDF the demo announces, an image),
// found through the sessions' tool calls and downloaded from the Engine (GetArtifact).
import { resolve } from "node:path";
import { Code, RpcError } from "@palisade/protocol";
import { CliError, ExitCode } from "../cli/errors.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { connectToEngine } from "../engine/connect.js";
import type { EngineClient } from "../engine/connect.js";
import { resolveSessionId } from "../engine/sessions.js";
import { saveInto } from "./artifact-files.js";
import { flag, hintCommand, pathsOf, startOptions, stringOption } from "./common.js";

export interface FoundArtifact {
  artifactId: string;
  filename: string;
  mimeType: string;
  sizeBytes: number;
  sessionId: string;
  toolName: string;
  createdAtMs: number;
}

/** Artifacts of the tool calls of one session, or of the newest 1000 sessions; newest first. */
export async function findArtifacts(client: EngineClient, sessionId?: string): Promise<FoundArtifact[]> {
  const ids = sessionId
    ? [sessionId]
    : (await client.listSessions({ limit: 1000 }, { timeoutMs: 10_000 })).sessions.map((s) => s.id);
  const out: FoundArtifact[] = [];
  for (const id of ids) {
    let cursor = "";
    do {
      let page;
      try {
        page = await client.getHistory({ sessionId: id, limit: 200, cursor }, { timeoutMs: 10_000 });
      } catch (err) {
        if (sessionId && err instanceof RpcError && err.code === Code.NOT_FOUND) {
          throw new CliError(`session ${id} does not exist`, {
            hint: "an off-the-record session and its artifacts are gone once it ends (deleted, or its Engine stopped)",
          });
        }
        throw err;
      }
      for (const m of page.messages) {
        for (const c of m.toolCalls) {
          for (const a of c.artifacts) {
            out.push({
              artifactId: a.artifactId,
              filename: a.filename,
              mimeType: a.mimeType,
              sizeBytes: Number(a.sizeBytes),
              sessionId: id,
              toolName: c.toolName,
              createdAtMs: Number(m.createdAtUnixMs),
            });
          }
        }
      }
      cursor = page.nextCursor;
    } while (cursor);
  }
  return out.sort((a, b) => b.createdAtMs - a.createdAtMs);
}

/** Downloads one artifact of a session into `dir` under its own name (never overwriting); returns the path. */
export async function downloadArtifact(
  client: EngineClient,
  sessionId: string,
  artifactId: string,
  dir: string,
): Promise<string> {
  let filename = "";
  const parts: Uint8Array[] = [];
  try {
    for await (const chunk of client.getArtifact({ sessionId, artifactId }, { timeoutMs: 60_000 })) {
      if (chunk.artifact) filename = chunk.artifact.filename;
      if (chunk.data.length > 0) parts.push(chunk.data);
    }
  } catch (err) {
    if (err instanceof RpcError && err.code === Code.NOT_FOUND) {
      throw new CliError(`artifact ${artifactId} is no longer available`, {
        hint: "capability hosts keep artifacts for 6 hours, and deleting a session deletes its artifacts; run the tool again",
      });
    }
    throw err;
  }
  return saveInto(dir, filename || artifactId, artifactId, Buffer.concat(parts));
}

async function withClient<T>(ctx: CommandContext, f: (client: EngineClient) => Promise<T>): Promise<T> {
  const conn = await connectToEngine(pathsOf(ctx), startOptions(ctx));
  try {
    return await f(conn.client);
  } finally {
    conn.close();
  }
}

export async function artifactsList(ctx: CommandContext): Promise<number> {
  return withClient(ctx, async (client) => {
    const session = stringOption(ctx, "session");
    const sessionId = session ? await resolveSessionId(client, session, (w) => hintCommand(ctx, w)) : undefined;
    const found = await findArtifacts(client, sessionId);
    if (flag(ctx, "json")) {
      println(ctx.io.stdout, JSON.stringify({ artifacts: found }));
      return ExitCode.OK;
    }
    if (found.length === 0) {
      println(
        ctx.io.stdout,
        sessionId
          ? `No artifacts in session ${sessionId}.`
          : "No artifacts yet: tools that make files (e.g. documents__create_pdf) list them here.",
      );
      return ExitCode.OK;
    }
    const rows = [
      ["ID", "SESSION", "BYTES", "FILE", "TOOL"],
      ...found.map((a) => [a.artifactId, a.sessionId.slice(0, 12), String(a.sizeBytes), a.filename, a.toolName]),
    ];
    const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
    for (const r of rows)
      println(ctx.io.stdout, r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  "));
    println(
      ctx.io.stderr,
      `save one with: ${hintCommand(ctx, `artifacts save ${found[0]?.artifactId ?? "ID"} --out DIR`)}`,
    );
    return ExitCode.OK;
  });
}

export async function artifactsSave(ctx: CommandContext): Promise<number> {
  const wanted = ctx.positionals[0] as string;
  return withClient(ctx, async (client) => {
    const session = stringOption(ctx, "session");
    const sessionId = session ? await resolveSessionId(client, session, (w) => hintCommand(ctx, w)) : undefined;
    const matches = (await findArtifacts(client, sessionId)).filter(
      (a) => a.artifactId === wanted || a.artifactId.startsWith(wanted),
    );
    const unique = [...new Map(matches.map((m) => [m.artifactId, m])).values()];
    const exact = unique.find((a) => a.artifactId === wanted);
    const artifact = exact ?? (unique.length === 1 ? unique[0] : undefined);
    if (!artifact) {
      if (unique.length > 1)
        throw new CliError(
          `'${wanted}' matches ${unique.length} artifacts: ${unique
            .slice(0, 5)
            .map((a) => `${a.artifactId} (${a.filename})`)
            .join(", ")}`,
          { hint: "type more of the id" },
        );
      throw new CliError(`no artifact ${wanted} in ${sessionId ? `session ${sessionId}` : "the stored sessions"}`, {
        hint: `see '${hintCommand(ctx, "artifacts list")}'`,
      });
    }
    const dir = resolve(ctx.io.cwd, stringOption(ctx, "out") ?? ".");
    const path = await downloadArtifact(client, artifact.sessionId, artifact.artifactId, dir);
    println(ctx.io.stdout, `saved ${path} (${artifact.sizeBytes} bytes, ${artifact.mimeType})`);
    return ExitCode.OK;
  });
}
