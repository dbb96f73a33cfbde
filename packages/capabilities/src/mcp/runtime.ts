import type { WriteStream } from "node:fs";
import { join } from "node:path";
import type { Client, OAuthClientProvider, ServerCapabilities, Tool } from "@modelcontextprotocol/client";
import type { ArtifactStore } from "../artifacts/store.js";
import type { ToolEntry } from "../catalog.js";
import type { McpCapabilityConfig } from "../config.js";
import type { CredentialSource, SecretRedactor } from "../credentials.js";
import { CapabilityError } from "../errors.js";
import { failedCall } from "../invoke.js";
import type { InvokeOptions, InvokeResult } from "../invoke.js";
import type { CapabilityState, CapabilityStatus } from "../runtime.js";
import { IdleTimer, RestartBudget } from "../supervise.js";
import { expandSecrets, isStdio, secretNames } from "./config.js";
import { connect } from "./connect.js";
import type { McpEra } from "./connect.js";
import { callMcpTool } from "./invoke.js";
import { describeStartError } from "./start-error.js";
import { ElicitationRouter } from "./elicit.js";
import type { Elicit } from "./elicit.js";
import type { Deadline } from "../deadline.js";
import { LoginRequiredError, PalisadeOAuthProvider } from "./oauth-provider.js";
import { machineOAuthProvider, machineRefusal } from "./oauth-machine.js";
import { OAuthStore } from "./oauth-store.js";
import type { StdioWrapper } from "./launch.js";
import type { ProgressTap } from "./progress.js";
import { listAllTools, mcpToolEntries, networkOf } from "./tools.js";
import { withConfigSemantics } from "../catalog.js";

export interface McpRuntimeOptions {
  logDir: string;
  startupTimeoutMs: number;
  recheckIntervalMs: number;
  healthCallTimeoutMs: number;
  credentials: CredentialSource;
  redactor: SecretRedactor;
  artifacts: ArtifactStore;
  onStatus: (status: CapabilityStatus) => void;
  /** Wraps a stdio server's command line (e.g. in a sandbox); default: dies with the Engine. */
  wrap?: StdioWrapper;
  /** A stdio server without calls this long is stopped (it starts again on the next call); 0: never. */
  idleStopMs?: number;
  /** The wait before the first restart (1 s); it doubles with each further one, up to 30 s. */
  restartBackoffMs?: number;
  /** The credential store file where HTTP servers' OAuth tokens are kept (none: no OAuth). */
  oauthFile?: string;
}

/** How long to wait before restart `n` (1-based): doubling from `base`, at most 30 s. */
export function restartDelay(n: number, base: number): number {
  return Math.min(base * 2 ** Math.max(0, n - 1), 30_000);
}

/** What `palisade capability check` prints about a server. */
export interface McpServerInfo {
  name: string;
  version: string;
  capabilities: ServerCapabilities;
  instructions?: string;
  /** The protocol revision in use, e.g. 2026-07-28 or 2025-11-25. */
  protocolVersion?: string;
  era?: McpEra;
}

/** The Engine's one user: whose stored credentials fill `${secret:name}`. */
const LOCAL_USER = "local";

/** One configured MCP server: its connection, health (ping), restarts and tools. */
export class McpRuntime {
  readonly config: McpCapabilityConfig;
  /** MCP servers have no Selu manifest. */
  readonly manifest = undefined;
  tools: ToolEntry[] = [];
  server: McpServerInfo | undefined;
  private client: Client | undefined;
  /** Found at the first connect; a restart does not probe again. */
  private era: McpEra | undefined;
  /** The tools as the server listed them, by name. */
  private definitions = new Map<string, Tool>();
  private readonly elicitation = new ElicitationRouter();
  private release: (() => Promise<void>) | undefined;
  private progress: ProgressTap | undefined;
  private log: WriteStream | undefined;
  private state: CapabilityState = "starting";
  private message = "starting";
  private warnings: string[] = [];
  private readonly tail: string[] = [];
  private readonly budget: RestartBudget;
  private readonly idle: IdleTimer;
  /** Aborted when the server is lost under its calls (reason: a `restarted` CapabilityError). */
  private calls = new AbortController();
  private launching: Promise<void> | undefined;
  private stopped = false;
  private generation = 0;
  private pinger: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private readonly stopping = new AbortController();
  private readonly opts: McpRuntimeOptions;
  private readonly settleWaiters: (() => void)[] = [];

  constructor(config: McpCapabilityConfig, opts: McpRuntimeOptions) {
    this.config = config;
    this.opts = opts;
    this.budget = new RestartBudget(config.maxRestarts ?? 3);
    this.idle = new IdleTimer(isStdio(config.mcp) ? (opts.idleStopMs ?? 0) : 0, () => void this.idleStop());
  }

  get ready(): boolean {
    return this.state === "ready";
  }

  /** Its tools can be called: it is ready, or stopped when idle (or being started for a call) and starts on the call. */
  get available(): boolean {
    if (this.state === "ready") return true;
    return (
      (this.state === "stopped" || (this.state === "starting" && this.launching !== undefined)) && this.tools.length > 0
    );
  }

  get launchMode(): "command" | "address" {
    return isStdio(this.config.mcp) ? "command" : "address";
  }

  get logFile(): string {
    return join(this.opts.logDir, `${this.config.id}.log`);
  }

  status(): CapabilityStatus {
    return {
      id: this.config.id,
      state: this.state,
      message: this.message,
      launchMode: this.launchMode,
      ...("url" in this.config.mcp ? { address: this.config.mcp.url } : {}),
      channel:
        "url" in this.config.mcp
          ? `MCP streamable HTTP ${this.config.mcp.url}`
          : "MCP stdio: pipes only the Engine holds",
      toolCount: this.tools.length,
      restarts: this.budget.restarts(),
      ...(isStdio(this.config.mcp)
        ? {
            process:
              this.state === "starting"
                ? ("starting" as const)
                : this.state === "ready" || this.state === "not_ready"
                  ? ("started" as const)
                  : ("stopped" as const),
          }
        : {}),
      warnings: this.warnings,
      ...(this.server?.protocolVersion
        ? {
            protocol: `MCP ${this.server.protocolVersion} (${this.server.era === "modern" ? "stateless: server/discover, per-request _meta" : "initialize handshake"})`,
          }
        : {}),
      ...(this.state === "failed" && this.tail.length > 0 ? { logTail: this.tail.slice(-20) } : {}),
    };
  }

  /** Never throws: a failure becomes a state with a message. Resolves once settled. */
  async start(): Promise<void> {
    if (this.config.enabled === false) return this.set("not_configured", "disabled in config (enabled: false)");
    await this.launch();
    while (this.state === "starting" && !this.stopped)
      await new Promise<void>((resolve) => this.settleWaiters.push(resolve));
  }

  /** Starts a server stopped when idle; resolves once settled. Never throws. */
  async ensureStarted(): Promise<void> {
    if (this.state === "stopped" && !this.stopped) {
      this.launching ??= this.launch().finally(() => (this.launching = undefined));
      await this.launching;
    }
    while (this.state === "starting" && !this.stopped)
      await new Promise<void>((resolve) => this.settleWaiters.push(resolve));
  }

  private async launch(): Promise<void> {
    const generation = ++this.generation;
    const seconds = Math.round(this.opts.startupTimeoutMs / 1000);
    this.set(
      "starting",
      isStdio(this.config.mcp)
        ? `starting: waiting for the server to answer (up to ${seconds} s); its tools arrive when it is ready`
        : `connecting to ${this.config.mcp.url} (up to ${seconds} s); its tools arrive when it is ready`,
    );
    this.calls = new AbortController();
    try {
      const values = await this.secretValues();
      const conn = await connect({
        config: this.config.mcp,
        values,
        ...(this.opts.wrap ? { wrap: this.opts.wrap } : {}),
        context: {
          capabilityId: this.config.id,
          network: networkOf(this.config),
          filesystem: this.config.filesystem ?? "workspace",
        },
        logFile: this.logFile,
        redact: (t) => this.opts.redactor.redact(t),
        onStderr: (text) => {
          for (const line of text.split("\n")) if (line.trim() !== "") this.tail.push(line);
          this.tail.splice(0, Math.max(0, this.tail.length - 20));
        },
        timeoutMs: this.opts.startupTimeoutMs,
        signal: this.stopping.signal,
        ...(this.era ? { era: this.era } : {}),
        ...(await this.oauthProvider()),
        setup: (client) => {
          client.setRequestHandler("elicitation/create", (request) =>
            this.elicitation.answer(this.config.id, request.params),
          );
          client.setNotificationHandler("notifications/tools/list_changed", () => {
            if (generation === this.generation) void this.refreshTools(client);
          });
          // Only a connection that was up can be lost: a failed start closes its client too,
          // and its own error says why, not "the connection closed".
          client.onclose = () => {
            if (generation === this.generation && this.client === client) void this.onLost("the connection closed");
          };
        },
      });
      if (this.stopped || generation !== this.generation) {
        await conn.client.close().catch(() => undefined);
        await conn.release().catch(() => undefined);
        return;
      }
      this.client = conn.client;
      this.release = conn.release;
      this.progress = conn.progress;
      this.log = conn.log;
      const version = conn.client.getServerVersion();
      const era = conn.client.getProtocolEra();
      if (era) this.era = era;
      const protocolVersion = conn.client.getNegotiatedProtocolVersion();
      // A server's own words go into the system prompt: no secret of its environment may.
      const rawInstructions = conn.client.getInstructions();
      const instructions = rawInstructions === undefined ? undefined : this.opts.redactor.redact(rawInstructions);
      this.server = {
        name: version?.name ?? "",
        version: version?.version ?? "",
        capabilities: conn.client.getServerCapabilities() ?? {},
        ...(instructions ? { instructions } : {}),
        ...(protocolVersion ? { protocolVersion } : {}),
        ...(era ? { era } : {}),
      };
      await this.loadTools(conn.client);
      this.set("ready", `${this.server.name || "server"} ${this.server.version}`.trim());
      this.schedulePing();
      this.idle.arm();
    } catch (err) {
      if (this.stopped || generation !== this.generation) return;
      const message = describeStartError(err, (t) => this.opts.redactor.redact(t));
      // Nothing a restart would change: a missing secret, or no sandbox on this machine.
      if (err instanceof CapabilityError && err.code === "missing_credential") return this.set("failed", message);
      if (err instanceof LoginRequiredError) return this.set("failed", err.message);
      const oauth = isStdio(this.config.mcp) ? undefined : this.config.mcp.oauth;
      if (oauth?.grant === "client_credentials" && oauth.clientId) {
        const refused = await machineRefusal(this.config.id, { ...oauth, clientId: oauth.clientId }, err, (t) =>
          this.opts.redactor.redact(t),
        );
        if (refused) return this.set("failed", refused.message);
      }
      const login = loginCause(err);
      if (login) return this.set("failed", login.message);
      // Nothing changes until someone signs in.
      if (!isStdio(this.config.mcp) && /\b401\b/.test(message))
        return this.set("failed", `${new LoginRequiredError(this.config.id, message).message}`);
      if (err instanceof Error && err.name === "SandboxError")
        return this.set("failed", `MCP server ${this.config.id} cannot start in its sandbox: ${message}`);
      // Some older stdio servers exit on a request they do not know (server/discover): the
      // restart speaks 2025-11-25 straight away.
      if (this.era === undefined && isStdio(this.config.mcp)) this.era = "legacy";
      await this.onLost(`could not start: ${message}`);
    }
  }

  /**
   * The stdio env or HTTP headers with each `${secret:name}` replaced: from the credential store
   * (`palisade capability credentials set <id> <name>`), else the Engine's environment variable.
   */
  private async secretValues(): Promise<Record<string, string>> {
    return this.expand(isStdio(this.config.mcp) ? this.config.mcp.env : this.config.mcp.headers);
  }

  private async expand(raw: Record<string, string> | undefined): Promise<Record<string, string>> {
    const found = new Map<string, string>();
    for (const name of secretNames(raw)) {
      const v =
        (await this.opts.credentials.user(LOCAL_USER, this.config.id, name)) ??
        this.opts.credentials.system(this.config.id, name);
      if (v === undefined || v === "") throw this.missing(name);
      this.opts.redactor.add(v);
      found.set(name, v);
    }
    return expandSecrets(raw, (name) => found.get(name) ?? "");
  }

  /**
   * HTTP servers: OAuth with the tokens `palisade capability login` stored, or, for a
   * `client_credentials` client, with tokens the Engine asks for itself with the client's
   * stored secret or key. Every secret and token is redacted everywhere.
   */
  private async oauthProvider(): Promise<{ authProvider?: OAuthClientProvider }> {
    const mcp = this.config.mcp;
    if (isStdio(mcp)) return {};
    const oauth = mcp.oauth;
    if (oauth?.grant === "client_credentials" && oauth.clientId) {
      const { secret, key } = await this.expand({
        ...(oauth.clientSecret ? { secret: oauth.clientSecret } : {}),
        ...(oauth.privateKey ? { key: oauth.privateKey } : {}),
      });
      const credential = secret ? { clientSecret: secret } : { privateKey: key ?? "" };
      const provider = await machineOAuthProvider({ ...oauth, clientId: oauth.clientId }, credential, (t) =>
        this.opts.redactor.add(t),
      );
      return { authProvider: provider };
    }
    if (!this.opts.oauthFile) return {};
    const store = OAuthStore.at(this.opts.oauthFile, this.config.id);
    const stored = await store.read();
    // Without a login there is nothing to use or refresh: no discovery or registration from the Engine.
    if (!stored.tokens) return {};
    for (const t of [stored.tokens?.access_token, stored.tokens?.refresh_token, stored.client?.client_secret])
      if (t) this.opts.redactor.add(t);
    const secret = mcp.oauth?.clientSecret ? (await this.expand({ s: mcp.oauth.clientSecret })).s : undefined;
    if (secret) this.opts.redactor.add(secret);
    return { authProvider: new PalisadeOAuthProvider(store, mcp.oauth ?? {}, secret || undefined) };
  }

  private missing(name: string): CapabilityError {
    return new CapabilityError(
      "missing_credential",
      `capability ${this.config.id} needs the secret ${name} (\${secret:${name}} in its mcp: config), which is not set. ` +
        `Store it with: palisade capability credentials set ${this.config.id} ${name}   (reads the value from stdin), ` +
        `or set the environment variable ${name} for the Engine; then restart the Engine.`,
    );
  }

  private async loadTools(client: Client): Promise<void> {
    const signal = AbortSignal.any([this.stopping.signal, AbortSignal.timeout(this.opts.startupTimeoutMs)]);
    const { tools, truncated } = await listAllTools(client, signal, this.opts.startupTimeoutMs);
    const { entries, skipped } = mcpToolEntries(this.config, tools, (t) => this.opts.redactor.redact(t));
    this.warnings = [
      ...skipped.map((s) => `tool ${s}`),
      ...(truncated ? ["tools/list returned too many pages; the rest were left out"] : []),
      ...machineIssuerWarning(this.config),
    ];
    this.tools = withConfigSemantics(entries, this.config.semantics);
    this.definitions = new Map(tools.map((t) => [t.name, t]));
  }

  private async refreshTools(client: Client): Promise<void> {
    try {
      await this.loadTools(client);
      this.opts.onStatus(this.status());
    } catch (err) {
      if (!this.stopped)
        this.warnings = [
          ...this.warnings,
          `tools/list after list_changed failed: ${err instanceof Error ? err.message : String(err)}`,
        ];
    }
  }

  private schedulePing(): void {
    clearTimeout(this.pinger);
    if (this.stopped) return;
    this.pinger = setTimeout(() => void this.pingOnce(), this.opts.recheckIntervalMs);
    this.pinger.unref();
  }

  private async pingOnce(): Promise<void> {
    const client = this.client;
    if (this.stopped || !client || this.state !== "ready") return;
    const generation = this.generation;
    try {
      // 2026-07-28 has no ping: server/discover is the cheapest request it answers.
      const options = { timeout: this.opts.healthCallTimeoutMs, signal: this.stopping.signal };
      if (this.era === "modern") await client.discover(options);
      else await client.ping(options);
      this.schedulePing();
    } catch (err) {
      if (this.stopped || generation !== this.generation) return;
      await this.onLost(
        `did not answer ping within ${this.opts.healthCallTimeoutMs} ms (${err instanceof Error ? err.message : String(err)})`,
      );
    }
  }

  /**
   * The server died, closed, or stopped answering: restart within the budget, else failed (a
   * stdio server) or not ready and tried again every recheck interval (an HTTP one).
   */
  private async onLost(why: string): Promise<void> {
    if (this.stopped) return;
    this.generation++;
    clearTimeout(this.pinger);
    this.idle.cancel();
    const restart = this.budget.allows() ? "restarting it" : "its restart budget is spent";
    this.calls.abort(
      new CapabilityError(
        "restarted",
        `MCP server ${this.config.id} ${why}; the Engine is ${restart}. The call did not complete.`,
      ),
    );
    this.tools = [];
    const old = this.client;
    this.client = undefined;
    this.log?.end();
    this.log = undefined;
    await old?.close().catch(() => undefined);
    await this.releaseLaunch();
    const budget = this.budget.max;
    const spent = !this.budget.take();
    if (spent && !isStdio(this.config.mcp)) {
      // A remote server may come back: keep trying, as for a Selu address, without failing.
      this.set(
        "not_ready",
        `MCP server ${this.config.id} is not reachable: ${why}; trying again every ${Math.round(this.opts.recheckIntervalMs / 1000)} s`,
      );
      clearTimeout(this.retry);
      this.retry = setTimeout(() => void this.launch(), this.opts.recheckIntervalMs);
      this.retry.unref();
      return;
    }
    const n = this.budget.restarts();
    if (spent) {
      const lines = this.tail.slice(-10);
      const where = isStdio(this.config.mcp)
        ? `; see ${this.logFile}${lines.length > 0 ? `; last log lines:\n${lines.join("\n")}` : ""}`
        : "";
      this.set("failed", `MCP server ${this.config.id}: ${why}, after ${n} restart${n === 1 ? "" : "s"}${where}`);
      return;
    }
    this.set("starting", `MCP server ${this.config.id}: ${why}; restarting (${n}/${budget})`);
    // Doubling waits: a server that fails at once (a 401, a bad flag) must not spend its whole
    // budget in a second, and one that needs a moment gets it.
    await new Promise((r) => setTimeout(r, restartDelay(n, this.opts.restartBackoffMs ?? 1000)));
    if (!this.stopped) await this.launch();
  }

  /** Stops a stdio server nobody called for a while; its tools stay listed and the next call starts it again. */
  private async idleStop(): Promise<void> {
    if (this.stopped || this.state !== "ready") return;
    this.generation++;
    clearTimeout(this.pinger);
    this.idle.cancel();
    const seconds = Math.round((this.opts.idleStopMs ?? 0) / 1000);
    this.set("stopped", `stopped after ${seconds} s without calls: starts again on its next call`);
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
    await this.releaseLaunch();
    this.log?.end();
    this.log = undefined;
  }

  /** One tools/call; failures are data for the model, never thrown. */
  async invoke(entry: ToolEntry, args: unknown, opts: InvokeOptions): Promise<InvokeResult> {
    await this.ensureStarted();
    const client = this.client;
    const progress = this.progress;
    if (!client || !progress || !this.ready) {
      const message = `capability ${this.config.id} is not ready: ${this.message}`;
      return failedCall("not_ready", message);
    }
    const end = this.idle.begin();
    const lost = this.calls.signal;
    const signal = opts.signal ? AbortSignal.any([opts.signal, lost]) : lost;
    // The call's deadline stops while its user is asked. A caller that gave the deadline (the
    // Engine) pauses it around its own question; one armed here is paused here.
    let deadline: Deadline | undefined;
    const elicit: Elicit | undefined =
      opts.elicit && !opts.deadline
        ? async (q, s) => {
            deadline?.pause();
            try {
              return await (opts.elicit as Elicit)(q, s);
            } finally {
              deadline?.resume();
            }
          }
        : opts.elicit;
    const call = () =>
      callMcpTool(
        {
          client,
          progress,
          entry,
          onDeadline: (d) => (deadline = d),
          ...(this.definitions.has(entry.name) ? { definition: this.definitions.get(entry.name) } : {}),
          capabilityId: this.config.id,
          defaultTimeoutMs: this.config.perToolTimeoutMs?.[entry.name] ?? this.config.timeoutMs ?? 120_000,
          artifacts: this.opts.artifacts,
          redactor: this.opts.redactor,
        },
        args,
        { ...opts, signal },
      );
    return this.elicitation.run({ tool: entry.name, signal, ...(elicit ? { elicit } : {}) }, call).finally(end);
  }

  private set(state: CapabilityState, message: string): void {
    const changed = state !== this.state || message !== this.message;
    this.state = state;
    this.message = message;
    if (changed) this.opts.onStatus(this.status());
    if (state !== "starting") for (const wake of this.settleWaiters.splice(0)) wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.generation++;
    this.stopping.abort();
    this.idle.cancel();
    for (const wake of this.settleWaiters.splice(0)) wake();
    clearTimeout(this.pinger);
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
    await this.releaseLaunch();
    this.log?.end();
  }

  private async releaseLaunch(): Promise<void> {
    const release = this.release;
    this.release = undefined;
    await release?.().catch(() => undefined);
  }
}

/** The login the SDK's auth flow asked for, wherever it wrapped it. */
function loginCause(err: unknown): LoginRequiredError | undefined {
  for (let e: unknown = err, i = 0; e instanceof Error && i < 5; e = e.cause, i++)
    if (e instanceof LoginRequiredError) return e;
  return undefined;
}

/** A `client_credentials` client without `oauth.issuer` sends its credential to whichever authorization server the MCP server names. */
function machineIssuerWarning(config: McpCapabilityConfig): string[] {
  const oauth = isStdio(config.mcp) ? undefined : config.mcp.oauth;
  if (oauth?.grant !== "client_credentials" || oauth.issuer) return [];
  return [
    "oauth.issuer is not set: the client's credential goes to whichever authorization server this MCP server names; set it to the issuer the client is registered with",
  ];
}
