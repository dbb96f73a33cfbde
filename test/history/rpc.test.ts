// Issue 9: the ClientService history RPCs end to end (real Engine, Agent, capabilities, SQLite,
// scripted model): ListSessions paging/sorting/filter, GetHistory cursor paging, SearchSessions
// with every filter and highlighted snippets, RenameSession, ExportSession md/json, DeleteSession.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, RpcError } from "@palisade/protocol";
import { ApprovalDecision, VerdictDecision } from "@palisade/protocol/types";
import { PipelineEventType as T, SessionSort } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import type { ChatMessage } from "@palisade/protocol/types";
import { messageText } from "@palisade/testing";
import { built, collect, final, kind, loadFiles, startE2E } from "../engine/helpers.js";
import type { E2E } from "../engine/helpers.js";

const skip = built();
let h: E2E;
beforeAll(async () => {
  if (skip) return;
  h = await startE2E({
    enable: ["documents"],
    model: {
      rules: [{ match: { role: "user" }, reply: (r) => ({ content: `reply to ${messageText(r.messages.at(-1))}` }) }],
    },
  });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function say(content: string, sessionId = ""): Promise<PipelineEvent[]> {
  const evs: PipelineEvent[] = [];
  for await (const ev of h.client.sendMessage({ content, sessionId })) {
    evs.push(ev);
    if (ev.eventType === T.APPROVAL_NEEDED)
      await h.client.resolveApproval({
        approvalId: ev.approvalNeeded!.approvalId,
        decision: ApprovalDecision.ALLOW_ONCE,
        sessionId: ev.sessionId,
      });
  }
  expect(kind(final(evs))).toBe("RESPONSE_COMPLETE");
  return evs;
}

async function rpcCode(p: Promise<unknown>): Promise<Code | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return err instanceof RpcError ? err.code : undefined;
  }
}

describe.skipIf(skip)("ClientService history RPCs", () => {
  it("ListSessions: limit, offset, every sort, title filter, total", async () => {
    const ids: string[] = [];
    for (const t of ["zqx beta notes", "zqx alpha report", "zqx gamma report"]) {
      ids.push((await h.client.createSession({ title: t })).session!.id);
      await sleep(5);
    }
    const list = async (sort: SessionSort, limit = 10, offset = 0, titleFilter = "zqx") =>
      h.client.listSessions({ sort, limit, offset, titleFilter });
    const titles = (r: Awaited<ReturnType<typeof list>>): string[] => r.sessions.map((s) => s.title);

    expect(titles(await list(SessionSort.CREATED_ASC))).toEqual([
      "zqx beta notes",
      "zqx alpha report",
      "zqx gamma report",
    ]);
    expect(titles(await list(SessionSort.CREATED_DESC))).toEqual([
      "zqx gamma report",
      "zqx alpha report",
      "zqx beta notes",
    ]);
    expect(titles(await list(SessionSort.TITLE))).toEqual(["zqx alpha report", "zqx beta notes", "zqx gamma report"]);
    const page = await list(SessionSort.CREATED_ASC, 2, 1);
    expect(titles(page)).toEqual(["zqx alpha report", "zqx gamma report"]);
    expect(page.total).toBe(3);
    const filtered = await list(SessionSort.TITLE, 10, 0, "zqx alpha");
    expect(titles(filtered)).toEqual(["zqx alpha report"]);
    expect(filtered.total).toBe(1);

    // A message makes the oldest one the most recently updated.
    await say("hello there", ids[0]);
    expect(titles(await list(SessionSort.UPDATED_DESC))[0]).toBe("zqx beta notes");
    expect(titles(await list(SessionSort.UPDATED_ASC)).at(-1)).toBe("zqx beta notes");
    expect(titles(await list(SessionSort.UNSPECIFIED))[0]).toBe("zqx beta notes"); // default: updated, newest first
    const all = await h.client.listSessions({});
    expect(all.total).toBeGreaterThanOrEqual(3);
  });

  it("GetHistory pages a long session with a cursor: newest page first, no gaps, no duplicates", async () => {
    const first = await say("turn 1");
    const sessionId = first[0]!.sessionId;
    for (let i = 2; i <= 40; i++) await say(`turn ${i}`, sessionId);

    const pages: ChatMessage[][] = [];
    let cursor = "";
    do {
      const res = await h.client.getHistory({ sessionId, limit: 7, cursor });
      expect(res.session?.id).toBe(sessionId);
      expect(res.messages.length).toBeLessThanOrEqual(7);
      pages.push(res.messages);
      cursor = res.nextCursor;
    } while (cursor);
    expect(pages.length).toBe(Math.ceil(80 / 7));
    expect(pages[0]!.map((m) => m.content).at(-1)).toBe("reply to turn 40"); // newest page first, oldest first inside
    const all = pages.reverse().flat();
    expect(all.map((m) => Number(m.seq))).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
    expect(new Set(all.map((m) => m.id)).size).toBe(80);
    expect(all.map((m) => m.content)).toEqual(
      Array.from({ length: 40 }, (_, i) => [`turn ${i + 1}`, `reply to turn ${i + 1}`]).flat(),
    );
    expect(all.map((m) => m.role)).toEqual(Array.from({ length: 40 }, () => ["user", "assistant"]).flat());
    expect(await rpcCode(h.client.getHistory({ sessionId: "ses_missing" }))).toBe(Code.NOT_FOUND);
  });

  let toolSession = "";
  let calls: Map<string, string>;
  it("SearchSessions: snippets, role, session, date range, tool name and Shield decision filters", async () => {
    const before = Date.now() - 1;
    const z1 = (await say("The zebra migrates at dawn"))[0]!.sessionId;
    const between = Date.now();
    await sleep(5);
    const z2 = (await say("Another zebra question"))[0]!.sessionId;
    const after = Date.now() + 1;

    const res = await h.client.searchSessions({ query: "zebra" });
    expect(res.total).toBe(4); // two user messages, two replies
    for (const hit of res.hits) expect(hit.snippet.toLowerCase()).toContain("[zebra]");
    expect(new Set(res.hits.map((x) => x.sessionId))).toEqual(new Set([z1, z2]));
    expect((await h.client.searchSessions({ query: "zebra", role: "user" })).hits.map((x) => x.role)).toEqual([
      "user",
      "user",
    ]);
    expect(
      (await h.client.searchSessions({ query: "zebra", role: "assistant" })).hits.every((x) => x.role === "assistant"),
    ).toBe(true);
    const inZ1 = await h.client.searchSessions({ query: "zebra", sessionId: z1 });
    expect(inZ1.hits.map((x) => x.sessionId)).toEqual([z1, z1]);
    expect(inZ1.hits.every((x) => x.sessionTitle === "The zebra migrates at dawn")).toBe(true);
    expect(
      (await h.client.searchSessions({ query: "zebra", fromUnixMs: BigInt(between) })).hits.every(
        (x) => x.sessionId === z2,
      ),
    ).toBe(true);
    expect(
      (await h.client.searchSessions({ query: "zebra", toUnixMs: BigInt(between) })).hits.every(
        (x) => x.sessionId === z1,
      ),
    ).toBe(true);
    expect(
      (await h.client.searchSessions({ query: "zebra", fromUnixMs: BigInt(before), toUnixMs: BigInt(after) })).total,
    ).toBe(4);
    expect((await h.client.searchSessions({ query: "zebra", fromUnixMs: BigInt(after) })).total).toBe(0);
    expect((await h.client.searchSessions({ query: "zebra", limit: 1, offset: 1 })).hits).toHaveLength(1);
    expect(await rpcCode(h.client.searchSessions({ query: "  " }))).toBe(Code.INVALID_ARGUMENT);

    // Tool calls: read (allowed), write (escalated, approved), delete (blocked), a PDF.
    h.model.enqueue(
      loadFiles,
      {
        toolCalls: [
          { name: "files__read_file", arguments: { path: "hello.txt" } },
          { name: "files__write_file", arguments: { path: "quokka.txt", content: "quokka facts" } },
          { name: "files__delete_file", arguments: { path: "quokka-old.txt" } },
        ],
      },
      { toolCalls: [{ name: "load_tools", arguments: { groups: ["documents"] } }] },
      {
        toolCalls: [
          {
            name: "documents__create_pdf",
            arguments: {
              title: "Quokkas",
              sections: [{ heading: "Facts", content: "Small." }],
              filename: "quokka.pdf",
            },
          },
        ],
      },
      { content: "All done with the files." },
    );
    const evs = await say("work on the quokka files");
    toolSession = evs[0]!.sessionId;
    calls = new Map(
      evs
        .filter((e) => e.eventType === T.ACTION_PROPOSED)
        .map((e) => [e.actionProposed!.toolName, e.actionProposed!.callId]),
    );

    const byTool = await h.client.searchSessions({ query: "quokka", toolName: "files__write_file" });
    expect(byTool.hits.map((x) => x.callId)).toEqual([calls.get("files__write_file")]);
    expect(byTool.hits[0]!.snippet).toContain("[quokka");
    expect(byTool.hits[0]!.toolName).toBe("files__write_file");
    const blocked = await h.client.searchSessions({ query: "quokka", decision: VerdictDecision.BLOCK });
    expect(blocked.hits.map((x) => x.callId)).toEqual([calls.get("files__delete_file")]);
    const allowed = await h.client.searchSessions({ query: "quokka", decision: VerdictDecision.ALLOW });
    expect(allowed.hits.map((x) => x.callId)).not.toContain(calls.get("files__delete_file"));
    expect(allowed.hits.map((x) => x.callId)).toContain(calls.get("documents__create_pdf"));
    // The result text of a tool call is searchable too.
    const inResult = await h.client.searchSessions({
      query: "hello world",
      toolName: "files__read_file",
      sessionId: toolSession,
    });
    expect(inResult.hits.map((x) => x.callId)).toEqual([calls.get("files__read_file")]);
    expect(inResult.hits[0]!.toolName).toBe("files__read_file");
  });

  it("ExportSession: Markdown and JSON with tool calls, verdicts, approvals and artifact metadata", async () => {
    const json = await h.client.exportSession({ sessionId: toolSession, format: "json" });
    expect(json.mimeType).toBe("application/json");
    expect(json.filename).toBe(`palisade-session-${toolSession}.json`);
    const data = JSON.parse(json.content) as {
      session: { id: string };
      messages: Array<{
        role: string;
        toolCalls: Array<{
          callId: string;
          toolName: string;
          verdict: { decision: string; ruleIds: string[] } | null;
          approval: { decision: string; by: string } | null;
          result: string;
          artifacts: Array<{ artifactId: string; filename: string; mimeType: string; sizeBytes: number }>;
        }>;
      }>;
    };
    expect(data.session.id).toBe(toolSession);
    const tc = data.messages.flatMap((m) => m.toolCalls);
    const of = (tool: string) => tc.find((c) => c.callId === calls.get(tool))!;
    expect(of("files__read_file").result).toContain("hello world");
    expect(of("files__write_file").verdict?.decision).toBe("escalate");
    expect(of("files__write_file").approval).toMatchObject({ decision: "allow_once", by: "user" });
    expect(of("files__delete_file").verdict).toMatchObject({ decision: "block", ruleIds: ["e2e-no-delete"] });
    const pdf = of("documents__create_pdf").artifacts[0]!;
    expect(pdf).toMatchObject({ filename: "quokka.pdf", mimeType: "application/pdf" });
    expect(pdf.sizeBytes).toBeGreaterThan(100);

    const md = await h.client.exportSession({ sessionId: toolSession, format: "md" });
    expect(md.mimeType).toBe("text/markdown");
    expect(md.content).toContain("# work on the quokka files");
    // a session started without asking for a model records the Engine's configured one
    expect(md.content).toContain("Model: scripted-model");
    expect(md.content).toContain("Tool call `files__write_file`");
    expect(md.content).toContain("- Approval: **allowed once** by user");
    expect(md.content).toMatch(/- Shield: \*\*block\*\* .*deleting files is not allowed here/);
    expect(md.content).toContain(
      `- Artifact: quokka.pdf (application/pdf, ${pdf.sizeBytes} bytes, id ${pdf.artifactId})`,
    );
    expect((await h.client.exportSession({ sessionId: toolSession })).mimeType).toBe("text/markdown"); // md by default
    expect(await rpcCode(h.client.exportSession({ sessionId: toolSession, format: "pdf" }))).toBe(
      Code.INVALID_ARGUMENT,
    );
    expect(await rpcCode(h.client.exportSession({ sessionId: "ses_missing", format: "md" }))).toBe(Code.NOT_FOUND);
  });

  it("RenameSession: the new title is listed, searched and exported", async () => {
    const res = await h.client.renameSession({ sessionId: toolSession, title: "  Quokka work  " });
    expect(res.session?.title).toBe("Quokka work");
    expect((await h.client.listSessions({ titleFilter: "Quokka work" })).sessions.map((s) => s.id)).toEqual([
      toolSession,
    ]);
    expect((await h.client.searchSessions({ query: "quokka", sessionId: toolSession })).hits[0]?.sessionTitle).toBe(
      "Quokka work",
    );
    expect((await h.client.exportSession({ sessionId: toolSession, format: "md" })).content).toMatch(/^# Quokka work/);
    expect(await rpcCode(h.client.renameSession({ sessionId: toolSession, title: " " }))).toBe(Code.INVALID_ARGUMENT);
    expect(await rpcCode(h.client.renameSession({ sessionId: "ses_missing", title: "x" }))).toBe(Code.NOT_FOUND);
  });

  it("DeleteSession: gone from listing, history, search and export", async () => {
    expect((await h.client.deleteSession({ sessionId: toolSession })).deleted).toBe(true);
    expect((await h.client.deleteSession({ sessionId: toolSession })).deleted).toBe(false);
    expect((await h.client.listSessions({ limit: 1000 })).sessions.map((s) => s.id)).not.toContain(toolSession);
    expect(await rpcCode(h.client.getHistory({ sessionId: toolSession }))).toBe(Code.NOT_FOUND);
    expect((await h.client.searchSessions({ query: "quokka" })).total).toBe(0);
    expect(await rpcCode(h.client.exportSession({ sessionId: toolSession, format: "json" }))).toBe(Code.NOT_FOUND);
    expect(await rpcCode(h.client.deleteSession({ sessionId: "" }))).toBe(Code.INVALID_ARGUMENT);
  });

  it("history survives a restart", async () => {
    const evs = await collect(h.client.sendMessage({ content: "remember the okapi" }));
    const sessionId = evs[0]!.sessionId;
    await h.restart();
    const res = await h.client.getHistory({ sessionId });
    expect(res.messages.map((m) => m.content)).toEqual(["remember the okapi", "reply to remember the okapi"]);
    expect((await h.client.searchSessions({ query: "okapi" })).hits.map((x) => x.sessionId)).toContain(sessionId);
  });
});
