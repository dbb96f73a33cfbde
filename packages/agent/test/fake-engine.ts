import type { MessageInitShape } from "@bufbuild/protobuf";
import { AsyncQueue, RpcServer } from "@palisade/protocol";
import { AgentService } from "@palisade/protocol/pipeline";
import type {
  AgentEvent,
  EngineDirectiveSchema,
  ProcessRequestSchema,
  ToolCallProposed,
  ToolGroupSchema,
} from "@palisade/protocol/pipeline";
import type { ToolDefSchema } from "@palisade/protocol/types";
import { waitFor } from "@palisade/testing";

export type DirectiveInit = MessageInitShape<typeof EngineDirectiveSchema>;
export type ToolDefInit = MessageInitShape<typeof ToolDefSchema>;
export type ProcessInit = MessageInitShape<typeof ProcessRequestSchema>;

export interface ToolBehaviour {
  content?: string | ((args: unknown) => string);
  isError?: boolean;
  terminal?: boolean;
  delayMs?: number;
}

export interface FakeEngineOptions {
  /** Sent right after AgentReady; false: never sent. */
  initial?: { tools?: ToolDefInit[]; groups?: MessageInitShape<typeof ToolGroupSchema>[] } | false;
  /** Automatic answers to ToolCallProposed, by tool name (unknown tools get an error result). */
  tools?: Record<string, ToolBehaviour>;
  /** Definitions served for ToolDefsRequest, by group. */
  groups?: Record<string, ToolDefInit[]>;
}

export interface TurnOutcome {
  tokens: string;
  events: AgentEvent[];
  complete: Extract<AgentEvent["event"], { case: "responseComplete" }>["value"] | undefined;
  error: Extract<AgentEvent["event"], { case: "agentError" }>["value"] | undefined;
}

/** An Engine stand-in: a real gRPC AgentService on a unix socket that records every event. */
export class FakeEngine {
  readonly events: AgentEvent[] = [];
  /** The `authorization` metadata of each RunSession call (the Agent's spawn token travels there). */
  readonly credentials: string[] = [];
  readonly proposals: ToolCallProposed[] = [];
  /** When each proposal arrived and each result left (ms since epoch), for ordering assertions. */
  readonly proposalTimes: number[] = [];
  readonly resultTimes: number[] = [];
  streamEnded = false;
  private out: AsyncQueue<DirectiveInit> | undefined;
  private readonly server = new RpcServer();
  address = "";

  constructor(private readonly options: FakeEngineOptions = {}) {}

  async start(socketPath: string): Promise<this> {
    this.server.add(AgentService, {
      runSession: (requests, ctx) => {
        this.credentials.push(String(ctx.metadata.get("authorization")[0] ?? ""));
        const out = new AsyncQueue<DirectiveInit>();
        this.out = out;
        void this.consume(requests, out);
        return out;
      },
    });
    this.address = await this.server.listen(`unix:${socketPath}`);
    return this;
  }

  private async consume(requests: AsyncIterable<AgentEvent>, out: AsyncQueue<DirectiveInit>): Promise<void> {
    try {
      for await (const ev of requests) {
        this.events.push(ev);
        const e = ev.event;
        if (e.case === "ready" && this.options.initial !== false) {
          const init = this.options.initial ?? {};
          out.push({
            directive: { case: "initialToolDefs", value: { tools: init.tools ?? [], groups: init.groups ?? [] } },
          });
        } else if (e.case === "toolProposal") {
          this.proposals.push(e.value);
          this.proposalTimes.push(Date.now());
          void this.answer(e.value, out);
        } else if (e.case === "toolDefsRequest") {
          const known = e.value.groups.filter((g) => this.options.groups?.[g]);
          out.push({
            directive: {
              case: "toolDefs",
              value: {
                sessionId: e.value.sessionId,
                requestId: e.value.requestId,
                tools: known.flatMap((g) => this.options.groups?.[g] ?? []),
                loadedGroups: known,
                unknownGroups: e.value.groups.filter((g) => !this.options.groups?.[g]),
              },
            },
          });
        }
      }
    } catch {
      // the Agent went away
    }
    this.streamEnded = true;
    out.end();
  }

  private async answer(p: ToolCallProposed, out: AsyncQueue<DirectiveInit>): Promise<void> {
    const b = this.options.tools?.[p.toolName];
    if (b?.delayMs) await new Promise((r) => setTimeout(r, b.delayMs));
    const content = !b
      ? `unknown tool ${p.toolName}`
      : typeof b.content === "function"
        ? b.content(JSON.parse(p.argumentsJson || "{}"))
        : (b.content ?? "ok");
    this.resultTimes.push(Date.now());
    out.push({
      directive: {
        case: "toolResult",
        value: {
          callId: p.callId,
          sessionId: p.sessionId,
          messageId: p.messageId,
          content,
          isError: !b || (b.isError ?? false),
          terminal: b?.terminal ?? false,
        },
      },
    });
  }

  send(directive: DirectiveInit): void {
    if (!this.out) throw new Error("fake engine: no Agent connected");
    this.out.push(directive);
  }

  // The deadlines below bound waits for something that never comes; a loaded machine is slow, not wrong.
  async connected(timeoutMs = 60_000): Promise<AgentEvent> {
    return waitFor(() => this.events.find((e) => e.event.case === "ready"), { timeoutMs, message: "AgentReady" });
  }

  ofMessage(messageId: string): AgentEvent[] {
    return this.events.filter((e) => (e.event.value as { messageId?: string } | undefined)?.messageId === messageId);
  }

  /** Sends a ProcessRequest and waits for its AgentResponseComplete or AgentError. */
  async turn(req: ProcessInit, timeoutMs = 60_000): Promise<TurnOutcome> {
    this.send({ directive: { case: "process", value: req } });
    return this.outcome(req.messageId ?? "", timeoutMs);
  }

  async outcome(messageId: string, timeoutMs = 60_000): Promise<TurnOutcome> {
    await waitFor(
      () => this.ofMessage(messageId).some((e) => e.event.case === "responseComplete" || e.event.case === "agentError"),
      { timeoutMs, message: `end of turn ${messageId}` },
    );
    const events = this.ofMessage(messageId);
    const complete = events.find((e) => e.event.case === "responseComplete")?.event.value as TurnOutcome["complete"];
    // What the Engine streams to clients: the tokens, then the last burst that came with the end.
    const tokens =
      events.map((e) => (e.event.case === "llmTokenEmitted" ? e.event.value.text : "")).join("") +
      (complete?.lastText ?? "");
    const error = events.find((e) => e.event.case === "agentError")?.event.value as TurnOutcome["error"];
    return { tokens, events, complete, error };
  }

  async close(): Promise<void> {
    this.out?.end();
    await this.server.close(200);
  }
}
