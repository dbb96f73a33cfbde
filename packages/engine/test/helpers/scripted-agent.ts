// An Agent driven by the test: connects over RunSession like the real one, and hands every
// directive to the test.
import { AsyncQueue, createClient } from "@palisade/protocol";
import type { BidiCall } from "@palisade/protocol";
import { AgentService } from "@palisade/protocol/pipeline";
import type { AgentEvent, EngineDirective } from "@palisade/protocol/pipeline";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { AgentEventSchema } from "@palisade/protocol/pipeline";

export type AgentEventInit = MessageInitShape<typeof AgentEventSchema>;

export const CONFINED = {
  canWriteFile: false,
  canSpawnProcess: false,
  canReadOutside: false,
  canStartWorker: false,
  permissionModel: true,
  networkIsolated: true,
  detail: "test",
};

export class ScriptedAgent {
  readonly directives = new AsyncQueue<EngineDirective>();
  readonly all: EngineDirective[] = [];
  private readonly client;
  private readonly call: BidiCall<AgentEventInit, EngineDirective>;
  readonly closed: Promise<unknown>;
  private readonly it = this.directives[Symbol.asyncIterator]();

  constructor(address: string, token: string, sandbox: Partial<typeof CONFINED> = {}) {
    this.client = createClient(AgentService, address, { bearerToken: token });
    const call = this.client.runSession();
    this.call = call;
    call
      .send({
        event: {
          case: "ready",
          value: { agentId: "test-agent", sandbox: { ...CONFINED, ...sandbox }, pid: process.pid, version: "test" },
        },
      })
      .catch(() => undefined);
    this.closed = (async () => {
      try {
        for await (const d of call) {
          this.all.push(d);
          this.directives.push(d);
        }
        this.directives.end();
      } catch (err) {
        this.directives.fail(err);
        return err;
      }
      return undefined;
    })();
  }

  send(ev: AgentEventInit): Promise<void> {
    return this.call.send(ev);
  }

  /** The next directive of the given kind (others are skipped but kept in `all`). */
  async next<K extends EngineDirective["directive"]["case"]>(
    kind: K,
    timeoutMs = 60_000, // a bound for a directive that never comes: a loaded machine is slow, not wrong
  ): Promise<Extract<EngineDirective["directive"], { case: K }>["value"]> {
    const it = this.it;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${String(kind)} directive within ${timeoutMs} ms`);
      let timer: NodeJS.Timeout | undefined;
      const r = await Promise.race([
        it.next(),
        new Promise<never>(
          (_, rej) =>
            (timer = setTimeout(() => rej(new Error(`no ${String(kind)} directive within ${timeoutMs} ms`)), left)),
        ),
      ]);
      clearTimeout(timer);
      if (r.done) throw new Error(`stream ended while waiting for ${String(kind)}`);
      if (r.value.directive.case === kind) return r.value.directive.value as never;
    }
  }

  propose(sessionId: string, messageId: string, callId: string, toolName: string, args: unknown): Promise<void> {
    return this.send({
      event: {
        case: "toolProposal",
        value: {
          sessionId,
          messageId,
          callId,
          toolName,
          argumentsJson: typeof args === "string" ? args : JSON.stringify(args),
        },
      },
    });
  }

  complete(sessionId: string, messageId: string, content: string): Promise<void> {
    return this.send({
      event: {
        case: "responseComplete",
        value: { sessionId, messageId, content, usage: { inputTokens: 10, outputTokens: 5 } },
      },
    });
  }

  token(sessionId: string, messageId: string, text: string): Promise<void> {
    return this.send({ event: { case: "llmTokenEmitted", value: { sessionId, messageId, text } } });
  }

  close(): void {
    this.call.end();
    this.client.close();
  }

  cancel(): void {
    this.call.cancel();
    this.client.close();
  }
}

export type { AgentEvent };
