// The Engine end of AgentService.RunSession: authenticates the Agent (per-spawn token, constant
// time), checks its sandbox report, sends InitialToolDefs first, then carries directives out
// and routes events in.
import { createHash, timingSafeEqual } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { AsyncQueue, Code, RpcError } from "@palisade/protocol";
import type { CallContext } from "@palisade/protocol";
import { EngineDirectiveSchema } from "@palisade/protocol/pipeline";
import type { InitialToolDefsSchema } from "@palisade/protocol/pipeline";
import type {
  AgentEvent,
  AgentReady,
  EngineDirective,
  InitialToolDefs,
  SandboxReport,
} from "@palisade/protocol/pipeline";
import { checkSpawnedProcess, describeFacts, missingNamespaces } from "./verify.js";
import type { ProcessFacts } from "./verify.js";

export type DirectiveInit = MessageInitShape<typeof EngineDirectiveSchema>;

export interface AgentInfo {
  agentId: string;
  pid: number;
  version: string;
  sandbox: SandboxReport | undefined;
  connectedAt: number;
  /** What /proc showed about the process (absent for an external Agent, or without /proc). */
  verified?: ProcessFacts;
}

/** Probes that succeeded, i.e. the ways the Agent is NOT confined. Empty when sandboxed. */
export function sandboxViolations(report: SandboxReport | undefined): string[] {
  if (!report) return ["no sandbox report"];
  const out: string[] = [];
  if (!report.permissionModel) out.push("Node permission model is not active");
  if (report.canWriteFile) out.push("it could write a file");
  if (report.canSpawnProcess) out.push("it could spawn a process");
  if (report.canReadOutside) out.push("it could read a file outside its code");
  if (report.canStartWorker) out.push("it could start a worker");
  if (!report.networkIsolated) out.push("it has a network interface (no network namespace of its own)");
  return out;
}

/** Constant-time comparison of two secrets of any length. */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash("sha256").update(a).digest();
  const hb = createHash("sha256").update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

/** What AgentService's authorizer established about a call: the spawn token it carried. */
export interface AgentCredential {
  kind: "agent";
  /** tokenId-style digest prefix of the spawn token (logs). */
  tokenId: string;
  /** The process the token was issued to; undefined for an external Agent (tests, benchmarks). */
  spawnedPid: number | undefined;
}

const digestOf = (token: string): string => createHash("sha256").update(token).digest("hex");

export interface AgentLinkOptions {
  allowUnsandboxed: () => boolean;
  initialToolDefs: () => MessageInitShape<typeof InitialToolDefsSchema>;
  onEvent: (event: AgentEvent) => void;
  onConnected: (info: AgentInfo) => void;
  onDisconnected: (reason: string) => void;
  onRefused: (reason: string) => void;
  /** A connection with the spawned process's token did not come from that process: replace it. */
  onImpostor?: (reason: string) => void;
  readyTimeoutMs: number;
  /** Namespaces the spawned Agent must have of its own, as /proc shows them (its sandbox's). */
  ownNamespaces?: () => readonly string[];
  log?: (line: string) => void;
}

interface Connection {
  queue: AsyncQueue<DirectiveInit>;
  info: AgentInfo;
}

export class AgentLink {
  private expected: { token: string; pid: number | undefined } | undefined;
  /** Digests of spent spawn tokens: presenting one again is a replay, refused and logged. */
  private readonly spent = new Set<string>();
  private conn: Connection | undefined;
  private waiters = new Set<() => void>();
  private readonly taps = new Set<(d: EngineDirective) => void>();

  constructor(private readonly options: AgentLinkOptions) {}

  /**
   * The token the next Agent must present (set per spawn, with the spawned process's pid;
   * undefined refuses everyone). A token opens one RunSession, once.
   */
  expect(token: string | undefined, pid?: number): void {
    this.expected = token === undefined ? undefined : { token, pid };
  }

  /** AgentService's authorizer: the spawn token from the call's metadata, good for one call. */
  authorize(token: string, peer: string): AgentCredential {
    const expected = this.expected;
    if (expected && token && safeEqual(token, expected.token)) {
      this.expected = undefined;
      this.spent.add(digestOf(token));
      return { kind: "agent", tokenId: digestOf(token).slice(0, 12), spawnedPid: expected.pid };
    }
    if (token && this.spent.has(digestOf(token))) {
      this.options.log?.(
        `refused a replayed Agent token (${digestOf(token).slice(0, 12)}) from ${peer}: it was already used by the Agent it was issued to`,
      );
      throw new RpcError(
        Code.UNAUTHENTICATED,
        "this Agent token was already used: a spawn token opens one RunSession of the process it was issued to",
      );
    }
    throw new RpcError(
      Code.UNAUTHENTICATED,
      "AgentService call with no valid token: only the Agent process this Engine spawned may connect, with its spawn token as 'authorization: Bearer <token>'",
    );
  }

  get connected(): boolean {
    return this.conn !== undefined;
  }

  get info(): AgentInfo | undefined {
    return this.conn?.info;
  }

  /** Observes every directive sent to the Agent (tests scan them for secrets). */
  tap(fn: (d: EngineDirective) => void): () => void {
    this.taps.add(fn);
    return () => this.taps.delete(fn);
  }

  send(directive: DirectiveInit): boolean {
    const conn = this.conn;
    if (!conn) return false;
    if (this.taps.size > 0) {
      const msg = create(EngineDirectiveSchema, directive);
      for (const t of this.taps) t(msg);
    }
    return conn.queue.push(directive);
  }

  /** Resolves once an Agent is connected; rejects on timeout or abort. */
  waitConnected(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.conn) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const done = (err?: Error): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.waiters.delete(wake);
        if (err) reject(err);
        else resolve();
      };
      const wake = (): void => done();
      const onAbort = (): void => done(new Error("cancelled while waiting for the Agent"));
      const timer = setTimeout(() => done(new Error(`no Agent connected within ${timeoutMs} ms`)), timeoutMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.add(wake);
    });
  }

  /** Ends the current connection (shutdown or a killed process). */
  close(reason: string): void {
    const conn = this.conn;
    if (!conn) return;
    this.conn = undefined;
    conn.queue.end();
    this.options.onDisconnected(reason);
  }

  /** AgentService.RunSession handler. */
  async *runSession(events: AsyncIterable<AgentEvent>, ctx: CallContext): AsyncIterable<DirectiveInit> {
    const it = events[Symbol.asyncIterator]();
    const credential = ctx.principal as AgentCredential | undefined;
    if (credential?.kind !== "agent") throw new RpcError(Code.UNAUTHENTICATED, "RunSession was not authorized");
    const ready = await this.readReady(it, ctx.signal);
    const violations = sandboxViolations(ready.sandbox);
    if (violations.length > 0 && !this.options.allowUnsandboxed()) {
      const reason =
        `refusing an unconfined Agent (pid ${ready.pid}): ${violations.join("; ")}. ` +
        "Run on Node >= 22.12 (permission model) where unprivileged user and network namespaces work (`unshare -rn true`), or set agent.allow_unsandboxed: true (or --allow-unsandboxed) to accept the risk.";
      this.expected = undefined;
      this.options.onRefused(reason);
      yield { directive: { case: "shutdown", value: { reason } } };
      throw new RpcError(Code.PERMISSION_DENIED, reason);
    }
    const outside =
      credential.spawnedPid === undefined ? undefined : this.checkFromOutside(credential.spawnedPid, ready);
    if (outside && !outside.ok) {
      const reason = `refused an Agent connection with the spawn token of pid ${String(credential.spawnedPid)}: ${outside.reason}`;
      this.options.log?.(reason);
      // The token is spent: the spawned process cannot connect any more; it is replaced.
      this.options.onImpostor?.(reason);
      throw new RpcError(Code.PERMISSION_DENIED, reason);
    }
    if (this.conn) this.close("replaced by a new Agent connection");
    const queue = new AsyncQueue<DirectiveInit>();
    const info: AgentInfo = {
      agentId: ready.agentId,
      pid: ready.pid,
      version: ready.version,
      sandbox: ready.sandbox,
      connectedAt: Date.now(),
      ...(outside?.ok && outside.facts ? { verified: outside.facts } : {}),
    };
    const conn: Connection = { queue, info };
    this.conn = conn;
    // InitialToolDefs is always the first directive.
    this.sendOn(conn, {
      directive: { case: "initialToolDefs", value: this.options.initialToolDefs() as InitialToolDefs },
    });
    this.options.onConnected(info);
    for (const wake of [...this.waiters]) wake();
    void this.pump(it, conn);
    yield* queue;
  }

  /** The claimed pid must be the spawned process (or run under it), and its report must match /proc. */
  private checkFromOutside(
    spawnedPid: number,
    ready: AgentReady,
  ): { ok: true; facts: ProcessFacts | undefined } | { ok: false; reason: string } {
    const check = checkSpawnedProcess(spawnedPid, ready.pid);
    if (!check.ok) return check;
    const facts = check.facts;
    if (facts && ready.sandbox?.networkIsolated && !facts.ownNamespaces.includes("net")) {
      return {
        ok: false,
        reason: `its sandbox report says its network is isolated, but it shares the Engine's network namespace (${describeFacts(facts)})`,
      };
    }
    const missing = facts ? missingNamespaces(facts, this.options.ownNamespaces?.() ?? []) : undefined;
    if (missing) return { ok: false, reason: `it was launched in a sandbox of its own, but ${missing}` };
    if (facts && facts.uid !== process.getuid?.() && !facts.ownNamespaces.includes("user")) {
      return { ok: false, reason: `it runs as uid ${String(facts.uid)}, not as the Engine's user` };
    }
    return { ok: true, facts };
  }

  private sendOn(conn: Connection, directive: DirectiveInit): void {
    if (this.taps.size > 0) {
      const msg = create(EngineDirectiveSchema, directive);
      for (const t of this.taps) t(msg);
    }
    conn.queue.push(directive);
  }

  private async readReady(it: AsyncIterator<AgentEvent>, signal: AbortSignal): Promise<AgentReady> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new RpcError(
              Code.DEADLINE_EXCEEDED,
              `the Agent sent no AgentReady within ${this.options.readyTimeoutMs} ms`,
            ),
          ),
        this.options.readyTimeoutMs,
      );
    });
    try {
      const first = await Promise.race([it.next(), timeout]);
      if (signal.aborted) throw new RpcError(Code.CANCELLED, "Agent stream cancelled");
      if (first.done || first.value.event.case !== "ready") {
        throw new RpcError(Code.FAILED_PRECONDITION, "the first message on RunSession must be AgentReady");
      }
      return first.value.event.value;
    } finally {
      clearTimeout(timer);
    }
  }

  private async pump(it: AsyncIterator<AgentEvent>, conn: Connection): Promise<void> {
    let reason = "the Agent closed its stream";
    try {
      for (;;) {
        const next = await it.next();
        if (next.done) break;
        if (this.conn !== conn) break;
        try {
          this.options.onEvent(next.value);
        } catch (err) {
          reason = `internal error handling an Agent event: ${(err as Error).message}`;
        }
      }
    } catch (err) {
      reason = `the Agent stream failed: ${(err as Error).message}`;
    }
    if (this.conn === conn) this.close(reason);
  }
}
