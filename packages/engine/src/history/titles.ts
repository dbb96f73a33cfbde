// Automatic session titles. The turn's commit already titles a new session with its
// first user message; after that first turn completes, one small model call (20 tokens, 5 s)
// may replace it with a better one. A failed, slow or absent model changes nothing, a title the
// user chose is never replaced, off-the-record sessions are never sent, and the call carries
// only the first user message and an excerpt of the reply: no tool results, no credentials.
// Titles are background work: they wait while turns are running (up to MAX_DEFER_MS), and run
// at most TITLE_CONCURRENCY at a time, so a burst of new sessions does not pay for its titles
// with the CPU its answers need.
import type OpenAI from "openai";
import { isModelConfigured } from "@palisade/config";
import type { ModelEndpoint } from "@palisade/config";
import type { EngineStore, SessionRecord } from "../ports.js";
import { sessionModel } from "./sessions.js";

/** The system prompt of title requests (scripted models in tests recognize them by it). */
export const TITLE_SYSTEM_PROMPT =
  "You name conversations. Reply with a title of at most six words saying what the conversation below is about. " +
  "Reply with the title only: no quotes, no final punctuation.";

export const TITLE_MAX_TOKENS = 20;
export const TITLE_TIMEOUT_MS = 5000;
const USER_CHARS = 600;
const REPLY_CHARS = 400;
const MAX_TITLE_CHARS = 80;
export const TITLE_CONCURRENCY = 2;
/** A title waits for idle time at most this long. */
export const MAX_DEFER_MS = 2000;
const RECHECK_MS = 50;
/** Titles waiting beyond this many keep their first-message title. */
const MAX_QUEUED = 1000;

function excerpt(text: string, max: number): string {
  const t = text.trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** The chat messages of a title request. Pure. */
export function titleMessages(userMessage: string, reply: string): Array<{ role: "system" | "user"; content: string }> {
  const parts = [`User: ${excerpt(userMessage, USER_CHARS)}`];
  if (reply.trim()) parts.push(`Assistant: ${excerpt(reply, REPLY_CHARS)}`);
  return [
    { role: "system", content: TITLE_SYSTEM_PROMPT },
    { role: "user", content: `${parts.join("\n\n")}\n\nTitle:` },
  ];
}

/** The model's answer as a title, or undefined when it is not usable (empty, several lines, too long). Pure. */
export function cleanTitle(text: string): string | undefined {
  const lines = text
    .trim()
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length !== 1) return undefined;
  const title = (lines[0] ?? "")
    .replace(/^(title|titre)\s*:\s*/i, "")
    .replace(/^["'“”‘’`*_#\s]+|["'“”‘’`*_\s]+$/g, "")
    .replace(/[.!。]+$/, "")
    .trim();
  return title && title.length <= MAX_TITLE_CHARS ? title : undefined;
}

export interface TitleWriterOptions {
  store: EngineStore;
  model: () => ModelEndpoint;
  enabled: boolean;
  log: (line: string) => void;
  timeoutMs?: number;
  /** True while turns are running: titles wait (default: never busy). */
  busy?: () => boolean;
}

interface TitleJob {
  session: SessionRecord;
  userMessage: string;
  reply: string;
  queuedAt: number;
}

export class TitleWriter {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly queue: TitleJob[] = [];
  private running = 0;
  private recheck: NodeJS.Timeout | undefined;
  private readonly abort = new AbortController();
  /**
   * One client (and its keep-alive connection pool) per model endpoint, not one per new session;
   * the Agent's node:http fetch costs less CPU per call than undici's.
   */
  private client: { key: string; client: OpenAI } | undefined;

  constructor(private readonly o: TitleWriterOptions) {}

  /** Names `session` in the background after its first completed turn. Never throws, never blocks. */
  request(session: SessionRecord, userMessage: string, reply: string): void {
    if (!this.o.enabled || session.mode === "otr" || this.abort.signal.aborted) return;
    if (!isModelConfigured(this.o.model())) return;
    if (this.queue.length >= MAX_QUEUED) {
      this.o.log(`title of ${session.id}: kept the first message (${String(MAX_QUEUED)} titles already waiting)`);
      return;
    }
    this.queue.push({ session, userMessage, reply, queuedAt: Date.now() });
    this.pump();
  }

  /** Starts queued titles while there is room, idle time, or a title waited long enough. */
  private pump(): void {
    while (this.running < TITLE_CONCURRENCY && this.queue.length > 0 && !this.abort.signal.aborted) {
      const oldest = this.queue[0] as TitleJob;
      if (this.o.busy?.() && Date.now() - oldest.queuedAt < MAX_DEFER_MS) {
        this.recheck ??= setTimeout(() => {
          this.recheck = undefined;
          this.pump();
        }, RECHECK_MS).unref();
        return;
      }
      this.queue.shift();
      this.running++;
      const model = this.o.model();
      const p = (
        isModelConfigured(model)
          ? this.generate(oldest.session, model, oldest.userMessage, oldest.reply)
          : Promise.resolve()
      )
        .catch((err: unknown) => {
          this.o.log(`title of ${oldest.session.id}: kept the first message (${(err as Error).message})`);
        })
        .finally(() => {
          this.running--;
          this.inFlight.delete(p);
          this.pump();
        });
      this.inFlight.add(p);
    }
  }

  private async generate(
    session: SessionRecord,
    model: ModelEndpoint,
    userMessage: string,
    reply: string,
  ): Promise<void> {
    const timeout = this.o.timeoutMs ?? TITLE_TIMEOUT_MS;
    const client = await this.clientFor(model, timeout);
    const res = await client.chat.completions.create(
      {
        model: sessionModel(session, model.name),
        messages: titleMessages(userMessage, reply),
        max_tokens: TITLE_MAX_TOKENS,
        temperature: 0.2,
        stream: false,
      },
      { signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(timeout)]) },
    );
    const choice = res.choices[0];
    if (choice?.message.tool_calls?.length) throw new Error("the model answered with tool calls");
    const title = cleanTitle(choice?.message.content ?? "");
    if (!title) throw new Error(`unusable answer ${JSON.stringify((choice?.message.content ?? "").slice(0, 60))}`);
    if (this.abort.signal.aborted) return;
    const set = await this.o.store.setAutoTitle(session.id, title);
    if (!set) this.o.log(`title of ${session.id}: the user's title stays`);
  }

  private async clientFor(model: ModelEndpoint, timeout: number): Promise<OpenAI> {
    const apiKey = model.apiKey || "not-needed";
    const key = JSON.stringify([apiKey, model.baseUrl, timeout]);
    if (this.client?.key !== key) {
      // Loaded with the first title, not at Engine start.
      const { default: Sdk } = await import("openai");
      this.client = {
        key,
        client: new Sdk({ apiKey, ...(model.baseUrl ? { baseURL: model.baseUrl } : {}), maxRetries: 0, timeout }),
      };
    }
    return this.client.client;
  }

  /** Cancels pending calls and waits for them (before the store closes). */
  async close(): Promise<void> {
    this.abort.abort(new Error("the Engine is stopping"));
    clearTimeout(this.recheck);
    this.queue.length = 0;
    await Promise.allSettled([...this.inFlight]);
  }
}
