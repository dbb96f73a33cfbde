// The Engine's sub-agents: spawning (limits, names, tokens, processes), supervision (wall clock,
// registration deadline, crashes), follow-ups, cancellation (tool, parent turn, session), events
// to the parent session's clients and storage of finished runs.
import { randomUUID } from "node:crypto";
import { Code, RpcError } from "@palisade/protocol";
import { PipelineEventType } from "@palisade/protocol/pipeline";
import type { ToolHost } from "../ports.js";
import type { TurnEnv } from "../turns/env.js";
import { Turn } from "../history/turn.js";
import { DEFAULT_SUBAGENT_LIMITS } from "./ports.js";
import type { SubAgentDeps, SubAgentLauncher, SubAgentLimits } from "./ports.js";
import type { RunSummary, SubAgentRunStore, SubAgentState } from "../ports.js";
import { NamePool } from "./names.js";
import { SubAgentPipeline } from "./pipeline.js";
import { alive, appendTail, startProcess, terminate } from "./process.js";
import { SubAgentRun, grantScopeOf } from "./run.js";
import { newToken, TokenTable } from "./tokens.js";
import { AgentToolsHost, ScopedHost } from "./tools.js";
import type { AgentToolCall, AgentToolHandler } from "./tools.js";
import { handleAgentTool } from "./tool-handlers.js";
import type { AgentRuns, SpawnRequest } from "./tool-handlers.js";

const T = PipelineEventType;
/** Finished runs kept in memory for agent_status / agent_result / list_agents. */
const FINISHED_KEPT = 200;
const EVENT_OF: Record<Exclude<SubAgentState, "running">, PipelineEventType> = {
  completed: T.SUB_AGENT_COMPLETED,
  failed: T.SUB_AGENT_FAILED,
  cancelled: T.SUB_AGENT_CANCELLED,
};

export interface SubAgentManagerOptions {
  runs: SubAgentRunStore;
  launcher: SubAgentLauncher;
  limits?: Partial<SubAgentLimits>;
  /** Whether sub-agents are covered by their parent's session grants (config sub_agents.inherit_grants; default no). */
  inheritGrants?: () => boolean;
}

export class SubAgentManager implements AgentToolHandler, AgentRuns {
  readonly limits: SubAgentLimits;
  private readonly names = new NamePool();
  private readonly byName = new Map<string, SubAgentRun>();
  private readonly tokens = new TokenTable<SubAgentRun>();
  private readonly pipelines = new Map<SubAgentRun, SubAgentPipeline>();
  private readonly saving = new Set<Promise<void>>();
  private readonly taps = new Set<(what: string, message: unknown) => void>();
  private capabilities: ToolHost | undefined;
  private deps: SubAgentDeps | undefined;
  private engineAddress: () => string = () => "";
  private modelGateway: () => string = () => "";

  constructor(private readonly options: SubAgentManagerOptions) {
    this.limits = { ...DEFAULT_SUBAGENT_LIMITS, ...options.limits };
  }

  private inheritGrants(): boolean {
    return this.options.inheritGrants?.() ?? false;
  }

  /** The capability host with the `agents` group added (what the turn pipeline should use). */
  wrapHost(capabilities: ToolHost): ToolHost {
    this.capabilities = capabilities;
    return new AgentToolsHost(capabilities, this);
  }

  /** Connects the manager to the Engine once the pipeline exists; the address is read at each spawn. */
  attach(deps: SubAgentDeps, engineAddress: () => string, modelGateway: () => string = () => ""): void {
    this.deps = deps;
    this.engineAddress = engineAddress;
    this.modelGateway = modelGateway;
    // Cancelling a turn (CancelMessage, session deletion, shutdown) stops the session's sub-agents.
    deps.env.bus.onEvent((ev) => {
      if (ev.eventType === T.TURN_CANCELLED) {
        for (const run of this.sessionRuns(ev.sessionId))
          if (run.running) this.cancel(run, "the conversation's turn was cancelled");
      }
    });
  }

  get env(): TurnEnv {
    if (!this.deps) throw new Error("SubAgentManager used before attach()");
    return this.deps.env;
  }

  currentTurn(sessionId: string): Turn | undefined {
    return this.deps?.currentTurn(sessionId);
  }

  /** Observes what is sent to sub-agents (launch environments, RPC responses): tests scan it for secrets. */
  tap(fn: (what: string, message: unknown) => void): () => void {
    this.taps.add(fn);
    return () => this.taps.delete(fn);
  }

  observe(what: string, message: unknown): void {
    for (const t of this.taps) t(what, message);
  }

  running(): SubAgentRun[] {
    return [...this.byName.values()].filter((r) => r.running);
  }

  sessionRuns(sessionId: string): SubAgentRun[] {
    return [...this.byName.values()].filter((r) => r.sessionId === sessionId);
  }

  find(name: string, sessionId: string): SubAgentRun | undefined {
    const run = this.byName.get(name);
    return run && run.sessionId === sessionId ? run : undefined;
  }

  byToken(token: string): SubAgentRun | undefined {
    return this.tokens.find(token);
  }

  /**
   * SubAgentService's authorizer: the spawn token from the call's metadata names the run; it is
   * valid while that run's process lives, and only ever speaks for that run.
   */
  authorize(token: string): SubAgentRun {
    const run = token ? this.byToken(token) : undefined;
    if (!run)
      throw new RpcError(
        Code.UNAUTHENTICATED,
        "SubAgentService needs a running sub-agent's spawn token ('authorization: Bearer <token>'): only a process the Engine spawned may call it",
      );
    return run;
  }

  pipeline(run: SubAgentRun): SubAgentPipeline | undefined {
    return this.pipelines.get(run);
  }

  /** Capability groups (plus `agents` where nesting allows) a sub-agent at `depth` may get. */
  grantable(depth: number): string[] {
    const groups = (this.capabilities?.groups() ?? []).map((g) => g.name);
    return depth < this.limits.maxDepth ? [...groups, "agents"] : groups;
  }

  scopedHost(run: SubAgentRun): ScopedHost {
    if (!this.capabilities) throw new Error("SubAgentManager.wrapHost() was not called");
    return new ScopedHost(this.capabilities, this, run, new Set(run.init.groups));
  }

  handle(tool: string, args: Record<string, unknown>, call: AgentToolCall) {
    return handleAgentTool(this, tool, args, call);
  }

  /** Starts a sub-agent; the caller has checked limits and groups. */
  spawn(req: SpawnRequest): SubAgentRun {
    const env = this.env;
    const name = this.names.take();
    const token = newToken();
    const turn = new Turn(req.parent.session, req.parent.messageId, req.parent.userMessageId, req.task, Date.now(), "");
    turn.state = "running";
    const run = new SubAgentRun({
      id: `sar_${randomUUID()}`,
      name,
      task: req.task,
      token,
      model: req.model,
      groups: req.groups,
      depth: (req.caller?.init.depth ?? 0) + 1,
      inheritedGrantScopes: this.inheritGrants()
        ? [grantScopeOf(req.caller), ...(req.caller?.init.inheritedGrantScopes ?? [])]
        : [],
      rootTurn: req.caller ? req.caller.init.rootTurn : req.parent,
      currentTurn: () => this.currentTurn(req.parent.session.id),
      turn,
    });
    this.byName.set(name, run);
    this.tokens.add(token, run);
    this.pipelines.set(run, new SubAgentPipeline(env, run, this.scopedHost(run)));

    const onParentAbort = (): void => this.cancel(run, "its parent turn was cancelled or failed");
    req.parent.signal.addEventListener("abort", onParentAbort, { once: true });
    void run.ended.then(() => req.parent.signal.removeEventListener("abort", onParentAbort));
    this.emit(run, T.SUB_AGENT_SPAWNED);

    const { timeoutMs, registerTimeoutMs } = this.limits;
    run.timers.push(
      setTimeout(
        () =>
          this.fail(run, `timed out after ${String(timeoutMs / 1000)} s (limits.sub_agents.timeout_s) and was stopped`),
        timeoutMs,
      ),
      setTimeout(() => {
        if (!run.registered)
          this.fail(run, `its process did not register within ${String(registerTimeoutMs / 1000)} s`);
      }, registerTimeoutMs),
    );
    if (req.parent.signal.aborted) onParentAbort();
    else this.launch(run);
    return run;
  }

  private launch(run: SubAgentRun): void {
    const config = this.env.config;
    try {
      const launch = this.options.launcher({
        engineAddress: this.engineAddress(),
        modelGateway: this.modelGateway(),
        token: run.init.token,
        name: run.name,
        model: { ...config.model, name: run.init.model },
      });
      this.observe("launch", launch.env);
      const child = startProcess(launch, run.init.token, {
        onStderr: (s) => (run.stderrTail = appendTail(run.stderrTail, s)),
        onError: (err) => this.fail(run, `its process could not be started (${launch.command}): ${err.message}`),
        onExit: (code, signal) => {
          this.tokens.remove(run.init.token);
          if (!run.running) return;
          const last = run.stderrTail.trim().split("\n").at(-1) ?? "";
          this.fail(
            run,
            `its process exited (${signal ?? `code ${String(code)}`}) before reporting a result${last ? `: ${last}` : ""}`,
          );
        },
      });
      run.child = child;
      this.observe("spawned", { name: run.name, pid: child.pid });
    } catch (err) {
      this.fail(run, `its process could not be started: ${(err as Error).message}`);
    }
  }

  message(run: SubAgentRun, text: string): void {
    run.inbox.push(text);
    run.transcript.push({ role: "user", content: text, createdAt: Date.now() });
  }

  progress(run: SubAgentRun, update: { llmCalls?: number; toolCall?: boolean }): void {
    if (!run.running) return;
    let changed = false;
    if (update.llmCalls !== undefined && update.llmCalls > run.llmCalls) {
      run.llmCalls = update.llmCalls;
      changed = true;
    }
    if (update.toolCall) {
      run.toolCalls++;
      changed = true;
    }
    if (changed) this.emit(run, T.SUB_AGENT_PROGRESS);
  }

  complete(run: SubAgentRun, result: string, llmCalls: number): void {
    if (llmCalls > run.llmCalls) run.llmCalls = llmCalls;
    this.finish(run, "completed", { result });
  }

  fail(run: SubAgentRun, error: string): void {
    this.finish(run, "failed", { error });
  }

  cancel(run: SubAgentRun, reason: string): void {
    this.finish(run, "cancelled", { error: reason });
  }

  private finish(
    run: SubAgentRun,
    state: Exclude<SubAgentState, "running">,
    detail: { result?: string; error?: string },
  ): void {
    if (!run.end(state, detail)) return;
    this.env.log(`sub-agent ${run.name} ${state}${run.error ? `: ${run.error}` : ""}`);
    this.emit(run, EVENT_OF[state]);
    if (state === "completed" && alive(run.child)) {
      // It exits by itself after reporting; make sure it does.
      const child = run.child;
      setTimeout(() => terminate(child, this.limits.killGraceMs), 2000).unref();
    } else {
      terminate(run.child, this.limits.killGraceMs);
    }
    this.pipelines.delete(run);
    this.persist(run);
    this.evict();
  }

  /** Forgets the oldest finished runs beyond FINISHED_KEPT (the store keeps them). */
  private evict(): void {
    const finished = [...this.byName.values()].filter((r) => !r.running);
    for (const run of finished.slice(0, Math.max(0, finished.length - FINISHED_KEPT))) {
      this.byName.delete(run.name);
      this.tokens.remove(run.init.token);
    }
  }

  private emit(run: SubAgentRun, eventType: PipelineEventType): void {
    run.emit(this.env.bus, { eventType, subAgent: run.event() });
  }

  private persist(run: SubAgentRun): void {
    if (run.init.turn.otr) return; // off the record: nothing is stored
    const p = (async () => {
      await run.init.rootTurn.done; // the parent message must exist before the run can point to it
      await this.options.runs.save(run.stored());
    })().catch((err: unknown) => this.env.log(`storing sub-agent run ${run.name} failed: ${(err as Error).message}`));
    this.saving.add(p);
    void p.finally(() => this.saving.delete(p));
  }

  /** Live runs of the session, then stored runs of earlier Engine lifetimes. */
  async list(sessionId: string): Promise<RunSummary[]> {
    const live = this.sessionRuns(sessionId).map((r) => r.summary());
    const names = new Set(live.map((r) => r.name));
    const stored = await this.options.runs.list(sessionId).catch((): RunSummary[] => []);
    return [...stored.filter((r) => !names.has(r.name)), ...live];
  }

  /** Cancels every run, waits for the processes to go and the runs to be stored. */
  async stop(): Promise<void> {
    const runs = [...this.byName.values()];
    for (const run of runs) if (run.running) this.cancel(run, "the Engine is stopping");
    await Promise.all(
      runs.map((r) =>
        alive(r.child) ? new Promise<void>((resolve) => r.child?.once("exit", () => resolve())) : Promise.resolve(),
      ),
    );
    await Promise.allSettled([...this.saving]);
    await this.options.runs.close();
  }
}
