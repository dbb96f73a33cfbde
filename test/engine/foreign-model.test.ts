// A model server we did not write: aimock (@copilotkit/aimock, CopilotKit's mock of the OpenAI
// API), run as its own process from its own CLI, answering from a fixture file. Each turn goes
// through the real Engine, the sandboxed Agent, the Shield and the files capability; aimock's chaos
// switches (500s, 429s with Retry-After, dropped connections, malformed bodies, streams cut off)
// give the failures real servers have, in aimock's own shapes rather than ours.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { built, collect, final, kind, root, startE2E } from "./helpers.js";
import type { E2E } from "./helpers.js";

const skip = built();
const ASK = "What does hello.txt say?";
const STORY = "Once upon a time a palisade kept the wolves away from a small town, for years and years.";
const FIXTURES = {
  fixtures: [
    {
      match: { userMessage: ASK, hasToolResult: false },
      response: { toolCalls: [{ name: "load_tools", arguments: { groups: ["files"] } }] },
    },
    {
      match: { userMessage: ASK, toolResultContains: "hello world" },
      response: { content: "The file says: hello world." },
    },
    {
      match: { userMessage: ASK, hasToolResult: true },
      response: { toolCalls: [{ name: "files__read_file", arguments: { path: "hello.txt" } }] },
    },
    { match: { userMessage: "ping" }, response: { content: "pong" } },
    // Cut after two chunks of 20 characters, with 50 ms between chunks: the answer has started.
    { match: { userMessage: "Tell me a story." }, response: { content: STORY }, truncateAfterChunks: 2, latency: 50 },
  ],
};

interface JournalEntry {
  path: string;
  headers: Record<string, string>;
  body: { model?: string; messages?: unknown[] };
  response: { status: number };
}

let aimock: ChildProcess | undefined;
let base = "";
let h: E2E;

async function startAimock(fixtureFile: string): Promise<string> {
  const cli = join(root, "node_modules", "@copilotkit", "aimock", "dist", "cli.js");
  const child = spawn(process.execPath, [cli, "-p", "0", "-h", "127.0.0.1", "-f", fixtureFile], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  aimock = child;
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`aimock did not start within 15 s: ${out}`)), 15_000);
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`aimock exited (${String(code)}): ${out}`)));
  });
}

async function control(method: "POST" | "DELETE", path: string, body?: unknown): Promise<void> {
  const res = await fetch(`${base}/__aimock${path}`, { method, ...(body ? { body: JSON.stringify(body) } : {}) });
  if (!res.ok) throw new Error(`aimock ${method} ${path}: HTTP ${String(res.status)} ${await res.text()}`);
}
const chaos = (c: Record<string, number>): Promise<void> => control("POST", "/chaos", c);
const journal = async (): Promise<JournalEntry[]> =>
  (await (await fetch(`${base}/__aimock/journal`)).json()) as JournalEntry[];

async function send(
  content: string,
  sessionId?: string,
): Promise<{ evs: PipelineEvent[]; calls: JournalEntry[]; ms: number }> {
  const before = (await journal()).length;
  const t0 = Date.now();
  const evs = await collect(h.client.sendMessage({ content, ...(sessionId ? { sessionId } : {}) }));
  const ms = Date.now() - t0;
  return { evs, calls: (await journal()).slice(before).filter((e) => e.path === "/v1/chat/completions"), ms };
}

beforeAll(async () => {
  if (skip) return;
  const fixtureFile = join(tmpdir(), `palisade-aimock-${String(process.pid)}.json`);
  writeFileSync(fixtureFile, JSON.stringify(FIXTURES));
  base = await startAimock(fixtureFile);
  h = await startE2E({
    baseURL: `${base}/v1`,
    modelConfig: ["  max_retries: 2", "  max_retry_wait_s: 5", "  idle_timeout_s: 5"],
  });
}, 60_000);
afterEach(async () => {
  if (!skip) await control("DELETE", "/chaos");
});
afterAll(async () => {
  await h?.close();
  aimock?.kill();
});

describe.skipIf(skip)("engine end to end: a model server we did not write (aimock)", () => {
  it("a tool loop: load_tools → files__read_file → an answer that uses the file", async () => {
    const { evs, calls } = await send(ASK);
    const done = evs.find((e) => e.eventType === T.ACTION_COMPLETED)?.actionCompleted;
    expect(done).toMatchObject({ success: true });
    expect(done?.resultSummary).toContain("hello world");
    expect(final(evs).responseComplete?.content).toBe("The file says: hello world.");
    expect(calls.map((c) => c.response.status)).toEqual([200, 200, 200]);
    // Every call names the configured model (startE2E's) and carries the credential the Engine adds.
    for (const c of calls) {
      expect(c.body.model).toBe("scripted-model");
      expect(c.headers.authorization).toBeDefined();
    }
  });

  it("a 500 on every call: retried max_retries times, then the server's words; the next message works", async () => {
    await chaos({ dropRate: 1 });
    const failed = await send("ping");
    expect(kind(final(failed.evs))).toBe("ERROR");
    expect(final(failed.evs).pipelineError?.message).toMatch(
      /HTTP 500: Chaos: request dropped.*gave up after 3 attempt/,
    );
    expect(final(failed.evs).pipelineError?.message).toContain(base);
    expect(failed.calls).toHaveLength(3);
    await control("DELETE", "/chaos");
    const ok = await send("ping", failed.evs[0]!.sessionId);
    expect(final(ok.evs).responseComplete?.content).toBe("pong");
  });

  it("429 with aimock's Retry-After: the user is told, the wait is kept, then a rate-limit error", async () => {
    await chaos({ rateLimitRate: 1 });
    const { evs, calls, ms } = await send("ping");
    expect(final(evs).pipelineError?.code).toBe("RATE_LIMITED");
    expect(final(evs).pipelineError?.message).toMatch(
      /rate-limited the request \(HTTP 429: Chaos: rate limit exceeded\)/,
    );
    expect(
      evs
        .filter((e) => e.eventType === T.THOUGHT)
        .map((e) => e.thought?.text)
        .join("\n"),
    ).toMatch(/Rate limited by the model server, retrying in \d+ s/);
    expect(calls).toHaveLength(3);
    expect(ms).toBeGreaterThanOrEqual(1900);
  });

  it("a connection dropped before any answer is retried, and said as such when it keeps happening", async () => {
    await chaos({ disconnectRate: 1 });
    const { evs, calls } = await send("ping");
    expect(kind(final(evs))).toBe("ERROR");
    expect(final(evs).pipelineError?.message).toMatch(/other side closed|socket hang up|ECONNRESET/);
    expect(final(evs).pipelineError?.message).toContain(base);
    expect(calls.length).toBe(3);
  });

  it("a malformed JSON body: the turn ends saying the answer was not JSON, with its first bytes", async () => {
    await chaos({ malformedRate: 1 });
    const { evs } = await send("ping");
    expect(kind(final(evs))).toBe("ERROR");
    expect(final(evs).pipelineError?.message).toMatch(/not valid JSON.*\{malformed json/);
    expect(final(evs).pipelineError?.message).toContain(base);
  });

  it("a stream cut off mid-answer ends the turn with an error, keeps the user's message, and the session goes on", async () => {
    const cut = await send("Tell me a story.");
    expect(kind(final(cut.evs))).toBe("ERROR");
    expect(final(cut.evs).pipelineError?.message).toContain(base);
    expect(final(cut.evs).pipelineError?.message).toMatch(
      /closed the connection before its answer was complete \(other side closed\); the answer was cut off/,
    );
    // Never presented as a complete answer.
    expect(cut.evs.some((e) => e.responseComplete?.content === STORY)).toBe(false);
    const sessionId = cut.evs[0]!.sessionId;
    const next = await send("ping", sessionId);
    expect(final(next.evs).responseComplete?.content).toBe("pong");
    const history = (await h.client.getHistory({ sessionId, limit: 100 })).messages.map((m) => m.content);
    expect(history).toContain("Tell me a story.");
    expect(history.slice(-2)).toEqual(["ping", "pong"]);
  });
});
