// startEngine: config → store, Shield, capabilities → gRPC server (three services) → Agent.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { RpcServer, unixSocketPath } from "@palisade/protocol";
import { AgentService, ClientService, SubAgentService } from "@palisade/protocol/pipeline";
import type { EngineDirective, PipelineEvent } from "@palisade/protocol/pipeline";
import { AgentLink, safeEqual } from "./agent/link.js";
import {
  AGENT_MAX_MESSAGE_BYTES,
  SUBAGENT_MAX_MESSAGE_BYTES,
  bearerOf,
  checkSocketDir,
  clientAuthorizer,
} from "./services/credentials.js";
import { AgentSupervisor } from "./agent/supervisor.js";
import { probeNetworkNamespace } from "./agent/netns.js";
import { BUBBLEWRAP_NAMESPACES, agentWallLine, chooseAgentWall, nodeLibrariesOnce } from "./agent/wall.js";
import { describeFacts } from "./agent/verify.js";
import { ApprovalBroker } from "./calls/approval-broker.js";
import {
  loadConfig,
  mergeCapabilities,
  auditKeyPath,
  defaultSocketAddress,
  discoverEngine,
  ensureDataDir,
  ensureToken,
  removeEngineInfo,
  resolveConfigPath,
  resolveDataDir,
  tokenPath,
  writeEngineInfo,
  setupOf,
} from "@palisade/config";
import type { EngineConfig, LimitsConfig } from "@palisade/config";
import { EngineError } from "./errors.js";
import { EventBus } from "./events.js";
import { ExchangeReplay, ModelGateway } from "./gateway/index.js";
import type { GatewayPrincipal, SessionTokens } from "./gateway/index.js";
import type { AgentLauncher, EngineShield, EngineStore, ToolHost } from "./ports.js";
import { clientService } from "./services/client.js";
// sub-agents (issue 8)
import { join } from "node:path";
import { DATABASE_FILE } from "./adapters/sqlite-store.js";
import {
  MemoryRunStore,
  SqliteRunStore,
  SubAgentManager,
  defaultSubAgentLauncher,
  listSubAgentsRpc,
  subAgentServiceImpl,
} from "./subagents/index.js";
import type { SubAgentLauncher, SubAgentLimits } from "./subagents/index.js";
import { SessionDirectory, sessionModel } from "./history/sessions.js";
import { ENGINE_VERSION, buildStatus } from "./services/status.js";
import { probeSandboxOnce } from "@palisade/sandbox";
import type { SandboxProbe } from "@palisade/sandbox";
import { toolSandboxLine } from "./adapters/sandbox.js";
import type { EgressHook } from "./adapters/sandbox.js";
import type { OtrHook } from "./adapters/capabilities.js";
import { loadToolsDef } from "./calls/tool-defs.js";
import type { TurnEnv } from "./turns/env.js";
import { TurnManager } from "./turns/manager.js";
import { ArgumentValidator } from "./calls/validate.js";
import { defaultParts } from "./adapters/defaults.js";
import type { Parts } from "./adapters/defaults.js";
import { agentLauncher } from "./adapters/agent.js";
// history (issue 9): audit trail, automatic titles, retention
import { AuditWriter } from "./history/audit.js";
import { Retention } from "./history/retention.js";
import { AgentIdleStop, SessionSweeper } from "./history/session-sweep.js";
import { TitleWriter } from "./history/titles.js";
import { RepoGuard } from "./calls/nested-repos.js";

export interface StartEngineOptions {
  dataDir?: string;
  configPath?: string;
  /** The audit chain's HMAC key file (default: audit.key beside the configuration file). */
  auditKeyFile?: string;
  /** A config already loaded (skips the file). */
  config?: EngineConfig;
  env?: NodeJS.ProcessEnv;
  /** Overrides config `listen`: `unix:/path` or a loopback `host:port`. */
  listen?: string;
  allowUnsandboxed?: boolean;
  /** Default workspace of new sessions (default: config `workspace`, else the cwd). */
  workspace?: string;
  limits?: Partial<LimitsConfig>;
  /**
   * How the Agent runs: spawned with `launcher` (default: @palisade/agent's agentLaunchSpec),
   * or `external` — not spawned; an Agent presenting `token` may connect (tests, benchmarks).
   */
  agent?: { launcher?: AgentLauncher } | { external: { token: string } };
  /** Replace collaborators (tests). Defaults: SQLite store, @palisade/shield, capability host. */
  store?: EngineStore;
  shield?: EngineShield;
  host?: ToolHost;
  /** What the tool sandbox probe found (default: probed once per process); tests use it to stand for a host without bubblewrap. */
  sandboxProbe?: SandboxProbe;
  /** sub-agents (issue 8): launcher and limits beyond config `limits.sub_agents` (tests). */
  subAgents?: { launcher?: SubAgentLauncher; limits?: Partial<SubAgentLimits> };
  /** The model gateway's test hooks: append exchanges to `record`, or answer from the recording `replay`. */
  gateway?: { record?: string; replay?: string };
  /** Started with the scripted demo model (recorded in engine.json: clients then do not compare the model). */
  demo?: boolean;
  /** Write engine.json (default true). */
  writeDiscovery?: boolean;
  log?: (line: string) => void;
}

export interface RunningEngine {
  address: string;
  dataDir: string;
  config: EngineConfig;
  /** The client token every ClientService call must carry (`authorization: Bearer <token>`); also in `<dataDir>/engine.token`. */
  bearerToken: string;
  /** Graceful stop: no new turns, running ones finish or are cancelled within `deadlineMs`. */
  stop(deadlineMs?: number): Promise<void>;
  /** Resolves when the Engine has stopped (Shutdown RPC or stop()). */
  readonly stopped: Promise<void>;
  /** Observes every directive sent to the Agent. */
  tapDirectives(fn: (d: EngineDirective) => void): () => void;
  onEvent(fn: (ev: PipelineEvent) => void): () => void;
  agentPid(): number | undefined;
  /** Resolves when an Agent is connected. */
  agentReady(timeoutMs?: number): Promise<void>;
  /** sub-agents (issue 8): observes launches and every message sent to a sub-agent. */
  tapSubAgents(fn: (what: string, message: unknown) => void): () => void;
  /** The model gateway's unix socket (the Agent's only way to the model). */
  modelGateway: string;
  /** Tokens the model gateway counted per session id ("" for calls naming none). */
  gatewayUsage(): ReadonlyMap<string, SessionTokens>;
  /** How many sessions each per-session in-memory map holds now (dropped when a session is idle). */
  sessionMemory(): SessionMemory;
}

export interface SessionMemory {
  eventSeqs: number;
  loadedGroups: number;
  gatewayUsage: number;
  contexts: number;
  recentTurns: number;
  /** Sessions whose conversation the Engine knows the Agent holds. */
  agentHistories: number;
  /** Sessions the sweeper watches (active recently). */
  tracked: number;
}

export async function startEngine(options: StartEngineOptions = {}): Promise<RunningEngine> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`[engine] ${line}\n`));
  const dataDir = resolveDataDir({ ...(options.dataDir ? { dataDir: options.dataDir } : {}), env });
  // Both probes spawn a process: they run while the config loads and the store opens.
  const sandboxProbing = options.sandboxProbe ? Promise.resolve(options.sandboxProbe) : probeSandboxOnce();
  sandboxProbing.catch(() => undefined); // awaited below; a config error may come first
  if (!(options.agent && "external" in options.agent)) void probeNetworkNamespace();
  nodeLibrariesOnce().catch(() => undefined); // awaited by chooseAgentWall below
  const loaded =
    options.config ??
    (await loadConfig(
      resolveConfigPath({ ...(options.configPath ? { configPath: options.configPath } : {}), env }),
      env,
    ));
  const config: EngineConfig = {
    ...loaded,
    limits: { ...loaded.limits, ...options.limits },
    agent: { ...loaded.agent, allowUnsandboxed: options.allowUnsandboxed ?? loaded.agent.allowUnsandboxed },
  };
  const workspace = options.workspace ?? config.workspace ?? process.cwd();
  await ensureDataDir(dataDir);

  const running = await discoverEngine({ dataDir, env });
  if (running && running.info.pid !== process.pid) {
    throw new EngineError(
      "ALREADY_RUNNING",
      `an Engine is already running for ${dataDir} (pid ${running.info.pid}, ${running.info.address}); stop it first with: palisade engine stop`,
    );
  }

  // the audit key sits beside the configuration, outside the data directory
  const configFile =
    config.source ?? resolveConfigPath({ ...(options.configPath ? { configPath: options.configPath } : {}), env });
  const auditKeyFile = options.auditKeyFile ?? auditKeyPath(configFile);
  const setup = setupOf(config, { configFile, dataDir, demo: options.demo ?? false });
  // A config given in code (tests) has no file whose edits would matter.
  const configFromFile = options.config === undefined || options.config.source !== undefined;
  const address = options.listen ?? config.listen.tcp ?? config.listen.unix ?? defaultSocketAddress(dataDir);
  const socket = unixSocketPath(address);
  // The private runtime directory (0700, mkdtemp): the model gateway's socket lives there.
  const runtimeDir = await mkdtemp(join(tmpdir(), "palisade-engine-"));
  const gatewaySocket = join(runtimeDir, "model-gateway.sock");
  // The Agent's and sub-agents' way to the gRPC server: a second socket beside the gateway's, so
  // their view binds one private directory (the public socket's directory holds palisade.db).
  const agentAddress = `unix:${join(runtimeDir, "engine.sock")}`;
  let boundAddress = "";
  const external = options.agent && "external" in options.agent ? options.agent.external : undefined;
  let supervisor: AgentSupervisor | undefined;
  // The credential of the live Agent at the model gateway: its spawn token.
  let agentCredential: string | undefined = external?.token;

  const link = new AgentLink({
    allowUnsandboxed: () => config.agent.allowUnsandboxed,
    initialToolDefs: () => {
      const groups = host.groups();
      return { tools: [loadToolsDef(groups.map((g) => g.name))], groups };
    },
    onEvent: (ev) => turns.onAgentEvent(ev),
    onConnected: (info) => {
      turns.agentConnected();
      supervisor?.connected();
      log(
        `agent connected: ${info.agentId} pid ${info.pid}${info.verified ? ` (seen from outside: ${describeFacts(info.verified)})` : ""}`,
      );
    },
    onDisconnected: (reason) => {
      log(`agent disconnected: ${reason}`);
      turns.onAgentLost(reason);
      supervisor?.disconnected(reason);
    },
    onRefused: (reason) => {
      agentCredential = undefined;
      supervisor?.refused(reason);
    },
    onImpostor: (reason) => supervisor?.disconnected(reason),
    readyTimeoutMs: config.limits.agentReadyTimeoutMs,
    // The bubblewrap view's namespaces, checked in /proc when the Agent connects.
    ownNamespaces: () => (ownLaunch && wall.kind === "bubblewrap" ? BUBBLEWRAP_NAMESPACES : []),
    log,
  });
  if (external) link.expect(external.token);
  // The Agent starts now, beside the Engine's own start (store, Shield, capability catalog): it
  // loads its code, then waits on its stdin for its spawn token, which it gets once the Engine
  // listens. Only where the address is known before listening (a unix socket, the default).
  // Bubblewrap from an empty root where it runs; otherwise refused, unless sandbox.required is false.
  const wall = await chooseAgentWall(await sandboxProbing, config.sandbox.required);
  const ownLaunch = !external && !pick(options).launcher;
  if (ownLaunch) log(agentWallLine(wall));
  const agentLaunch = pick(options).launcher ?? agentLauncher(wall);
  let releaseAgent!: () => void;
  const agentReleased = new Promise<void>((resolve) => (releaseAgent = resolve));
  const newSupervisor = (): AgentSupervisor =>
    new AgentSupervisor({
      link,
      launcher: (req) => {
        agentCredential = req.token;
        return agentLaunch(req);
      },
      request: () => ({
        engineAddress: agentAddress,
        modelGateway: gatewaySocket,
        agentId: config.agent.name,
        model: config.model,
        sessionIdleMs: config.limits.sessionIdleMs,
      }),
      budget: config.limits.agentRestartBudget,
      windowMs: config.limits.agentRestartWindowMs,
      readyTimeoutMs: config.limits.agentReadyTimeoutMs,
      log,
    });
  if (!external) {
    // Without bubblewrap the default launcher wraps the Agent in a network namespace: its probe (started above) decides how.
    if (!pick(options).launcher && wall.kind === "permissions") await probeNetworkNamespace();
    supervisor = newSupervisor();
    if (wall.kind === "refused" && !pick(options).launcher) supervisor.refused(wall.reason);
    else await supervisor.start(agentReleased);
  }
  // Tool sandboxes: whether bubblewrap can run here decides how capabilities start (and is said).
  const sandboxProbe = await sandboxProbing;
  log(toolSandboxLine(sandboxProbe, config.sandbox.required));
  const egress: EgressHook = {};
  const otr: OtrHook = {};
  let parts: Parts;
  try {
    parts = await defaultParts({
      dataDir,
      config,
      workspace,
      log,
      mergeCapabilities,
      auditKeyFile,
      sandboxProbe,
      egress,
      otr,
      ...pick(options),
      launcher: agentLaunch,
    });
  } catch (err) {
    await supervisor?.stop(500);
    await rm(runtimeDir, { recursive: true, force: true });
    throw err;
  }
  const { store, shield } = parts;
  // sub-agents (issue 8): the manager adds the `agents` tool group to the host the pipeline uses.
  const subAgents = new SubAgentManager({
    // Sub-agent runs go to the store's database (PostgreSQL), else the SQLite file.
    runs:
      store.subAgentRuns?.() ??
      (options.store ? new MemoryRunStore() : new SqliteRunStore(join(dataDir, DATABASE_FILE))),
    launcher: options.subAgents?.launcher ?? defaultSubAgentLauncher(() => wall),
    limits: { ...config.limits.subAgents, ...options.subAgents?.limits },
    inheritGrants: () => config.subAgents.inheritGrants,
  });
  const host = subAgents.wrapHost(parts.host);
  const bus = new EventBus();
  const approvals = new ApprovalBroker(() => config.limits.approvalTimeoutMs);

  const audit = new AuditWriter(store, log);
  // Titles yield to running turns (`turns` is assigned below, before any turn can start).
  const titles = new TitleWriter({
    store,
    model: () => config.model,
    enabled: config.history.autoTitle,
    log,
    busy: () => turns.activeTurns.length > 0,
  });
  const turnEnv: TurnEnv = {
    bus,
    link,
    store,
    shield,
    host,
    approvals,
    validator: new ArgumentValidator(),
    config,
    loadedGroups: new Map(),
    log,
    audit,
    titles,
    repoGuard: new RepoGuard(log),
  };
  // Deleting a session also deletes the artifacts the capability host keeps for it.
  const purgeArtifacts = (sessionId: string): Promise<number> =>
    parts.host.deleteSessionArtifacts?.(sessionId) ?? Promise.resolve(0);
  const retention = new Retention({
    store,
    config: config.history.retention,
    log,
    onDeleted: async (ids) => {
      for (const id of ids) {
        approvals.forgetSession(id);
        turnEnv.loadedGroups.delete(id);
        turns.agentHistory.forget(id);
        bus.closeSession(id);
        await purgeArtifacts(id).catch((err: unknown) =>
          log(`retention: artifacts of ${id}: ${(err as Error).message}`),
        );
      }
    },
  });
  const sessions = new SessionDirectory(store, () => ({ workspace, model: config.model.name }));
  otr.isOtr = (id) => sessions.isOtr(id);
  egress.listener = (capabilityId, event, sessionIds) => {
    // Off-the-record sessions write nothing, not even the hosts their tools contacted.
    if (sessionIds.some((id) => sessions.isOtr(id))) return;
    audit.egress(capabilityId, event, sessionIds.length === 1 ? (sessionIds[0] ?? "") : "");
  };
  const turns: TurnManager = new TurnManager(turnEnv, sessions, {
    waitMs: config.limits.agentReadyTimeoutMs,
    wake: () => supervisor?.wake() ?? Promise.resolve(),
    unavailable: () => {
      if (!supervisor) return undefined;
      if (supervisor.state === "failed" || supervisor.state === "refused") return supervisor.lastError;
      return undefined;
    },
  });
  // sub-agents (issue 8): their tool calls run through turnEnv's pipeline, in the turn that spawned them.
  const gateway = new ModelGateway({
    authorize: (credential): GatewayPrincipal | undefined => {
      if (agentCredential !== undefined && safeEqual(credential, agentCredential)) return { kind: "agent" };
      const run = subAgents.byToken(credential);
      return run?.running ? { kind: "subagent", name: run.name, sessionId: run.sessionId } : undefined;
    },
    model: () => config.model,
    // A client may choose the model of its turn; the Agent may use it while that turn runs.
    allowedModels: () => turns.activeTurns.map((t) => sessionModel(t.session, config.model.name)),
    env,
    ...(options.gateway?.record ? { record: options.gateway.record } : {}),
    ...(options.gateway?.replay ? { replay: await ExchangeReplay.load(options.gateway.replay) } : {}),
    log,
  });
  await gateway.listen(gatewaySocket);
  subAgents.attach(
    { env: turnEnv, currentTurn: (id) => turns.activeTurns.find((t) => t.session.id === id && t.state === "running") },
    () => agentAddress,
    () => gateway.path,
  );
  const startedAt = Date.now();

  const bearerToken = await ensureToken(dataDir);
  if (socket) await checkSocketDir(socket);
  const refusals = refusalLog(log);
  const server = new RpcServer({
    onInternalError: (err, path) => log(`internal error in ${path}: ${(err as Error).stack ?? String(err)}`),
    onRefused: (err, path, peer) => refusals(`refused ${path} from ${peer}: ${err.codeName}: ${err.message}`),
  });

  let stopping: Promise<void> | undefined;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  const stop = (deadlineMs = config.limits.shutdownDeadlineMs): Promise<void> => {
    stopping ??= (async () => {
      log("stopping");
      sweeper.stop();
      agentIdle.stop();
      await turns.drain(deadlineMs);
      await Promise.all([titles.close(), retention.stop()]);
      await subAgents.stop(); // sub-agents (issue 8)
      approvals.cancelAll();
      link.send({ directive: { case: "shutdown", value: { reason: "the Engine is stopping" } } });
      await supervisor?.stop(2000);
      agentCredential = undefined;
      link.close("the Engine stopped");
      await gateway.close();
      await rm(runtimeDir, { recursive: true, force: true });
      bus.closeSession();
      await server.close(1000);
      await host.close().catch((err: unknown) => log(`closing capabilities: ${(err as Error).message}`));
      await audit.flush();
      await store.close();
      if (options.writeDiscovery !== false) await removeEngineInfo(dataDir);
      if (socket) await rm(socket, { force: true });
      log("stopped");
      resolveStopped();
    })();
    return stopping;
  };

  server
    .add(
      AgentService,
      { runSession: (events, ctx) => link.runSession(events, ctx) },
      { authorize: (md, call) => link.authorize(bearerOf(md), call.peer), maxMessageBytes: AGENT_MAX_MESSAGE_BYTES },
    )
    .add(
      ClientService,
      {
        ...clientService({
          env: turnEnv,
          turns,
          sessions,
          bus,
          store,
          host,
          shield,
          approvals,
          status: async () => ({
            ...(await buildStatus({
              config,
              dataDir,
              startedAt,
              link,
              supervisor,
              shield,
              store,
              host,
              turns,
              sessions,
              toolSandbox: toolSandboxLine(sandboxProbe, config.sandbox.required),
              ...(ownLaunch ? { agentWall: agentWallLine(wall) } : {}),
              setup: configFromFile ? setup : undefined,
            })),
            runningSubAgents: subAgents.running().length, // sub-agents (issue 8)
          }),
          shutdown: (deadlineMs) => {
            // Answer the RPC first, then stop.
            setTimeout(() => void stop(deadlineMs), 10);
          },
          defaultWorkspace: () => workspace,
          purgeArtifacts,
          models: () => gateway.listModels(),
        }),
        listSubAgents: listSubAgentsRpc(subAgents), // sub-agents (issue 8)
      },
      {
        authorize: clientAuthorizer(bearerToken, tokenPath(dataDir), socket),
        maxMessageBytes: config.limits.clientMaxMessageBytes,
      },
    )
    .add(SubAgentService, subAgentServiceImpl(subAgents), {
      authorize: (md) => subAgents.authorize(bearerOf(md)),
      maxMessageBytes: SUBAGENT_MAX_MESSAGE_BYTES,
    }); // sub-agents (issue 8)

  if (socket) await rm(socket, { force: true }); // stale socket of a dead Engine (checked above)
  try {
    boundAddress = await server.listen(address);
    await server.listen(agentAddress);
  } catch (err) {
    await supervisor?.stop(500);
    await gateway.close();
    await rm(runtimeDir, { recursive: true, force: true });
    await host.close().catch(() => undefined);
    await store.close();
    throw new EngineError("LISTEN_FAILED", `cannot listen on ${address}: ${(err as Error).message}`, { cause: err });
  }

  // Several Engines on one database: this one joins them, reachable where it listens.
  await store.startLeases?.(boundAddress);
  await retention.start();
  // Per-session state of sessions nothing uses any more is dropped after limits.sessionIdleMs.
  const sweeper = new SessionSweeper({
    idleMs: config.limits.sessionIdleMs,
    busy: (id) =>
      turns.hasTurns(id) ||
      bus.hasSubscribers(id) ||
      approvals.pendingFor(id).length > 0 ||
      subAgents.running().some((r) => r.sessionId === id) ||
      // An off-the-record session lives in memory only: its seq cannot be read back.
      sessions.isOtr(id),
    forget: (id) => {
      bus.forgetSeq(id);
      turnEnv.loadedGroups.delete(id);
      gateway.forget(id);
      store.forget?.(id);
      turns.forgetSession(id);
    },
  });
  bus.onEvent((ev) => sweeper.touch(ev.sessionId));
  sweeper.start();
  // The Agent is stopped after limits.agent_idle_stop_s without turns; the next turn starts it.
  const agentIdle = new AgentIdleStop({
    idleMs: config.limits.agentIdleStopMs,
    supervisor: () => supervisor,
    busy: () => turns.activeTurns.length > 0 || subAgents.running().length > 0,
    shutdown: () =>
      link.send({
        directive: {
          case: "shutdown",
          value: { reason: "no turn for a while: the Engine stops the Agent until the next one" },
        },
      }),
    log,
  });
  bus.onEvent(() => agentIdle.touch());
  agentIdle.start();
  releaseAgent();
  if (!external && !supervisor) {
    supervisor = newSupervisor();
    await supervisor.start();
  }
  if (options.writeDiscovery !== false) {
    await writeEngineInfo(dataDir, {
      pid: process.pid,
      address: boundAddress,
      startedAt: new Date(startedAt).toISOString(),
      version: ENGINE_VERSION,
      setup,
    });
  }
  log(`listening on ${boundAddress}`);

  return {
    address: boundAddress,
    dataDir,
    config,
    bearerToken,
    stop,
    stopped,
    tapDirectives: (fn) => link.tap(fn),
    onEvent: (fn) => bus.onEvent(fn),
    // The Agent's own process as seen from outside (under bubblewrap, not the launcher's pid).
    agentPid: () => link.info?.verified?.hostPid ?? supervisor?.pid ?? link.info?.pid,
    agentReady: (timeoutMs = 15_000) => link.waitConnected(timeoutMs),
    tapSubAgents: (fn) => subAgents.tap(fn), // sub-agents (issue 8)
    modelGateway: gateway.path,
    gatewayUsage: () => gateway.usage(),
    sessionMemory: () => ({
      eventSeqs: bus.seqCount,
      loadedGroups: turnEnv.loadedGroups.size,
      gatewayUsage: gateway.usage().size,
      contexts: store.cachedSessions?.() ?? 0,
      recentTurns: turns.recentCount,
      agentHistories: turns.agentHistory.size,
      tracked: sweeper.tracked,
    }),
  };
}

/** Logs refused calls, but not without end: a peer retrying in a loop must not fill the log. */
function refusalLog(log: (line: string) => void, perMinute = 20): (line: string) => void {
  let windowStart = 0;
  let count = 0;
  return (line) => {
    const now = Date.now();
    if (now - windowStart > 60_000) {
      if (count > perMinute)
        log(`(${String(count - perMinute)} more refused calls in the last minute were not logged)`);
      windowStart = now;
      count = 0;
    }
    if (++count <= perMinute) log(line);
  };
}

function pick(o: StartEngineOptions): {
  store?: EngineStore;
  shield?: EngineShield;
  host?: ToolHost;
  launcher?: AgentLauncher;
} {
  const launcher = o.agent && "launcher" in o.agent ? o.agent.launcher : undefined;
  return {
    ...(o.store ? { store: o.store } : {}),
    ...(o.shield ? { shield: o.shield } : {}),
    ...(o.host ? { host: o.host } : {}),
    ...(launcher ? { launcher } : {}),
  };
}
