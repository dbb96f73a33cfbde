// ClientService: what the TUI, the CLI and any gRPC client call.
import { statSync } from "node:fs";
import { Code, RpcError } from "@palisade/protocol";
import type { CallContext, ServiceImpl } from "@palisade/protocol";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ClientService, PipelineEvent, StatusResponseSchema } from "@palisade/protocol/pipeline";
import type { ApprovalBroker } from "../calls/approval-broker.js";
import {
  approvalFromProto,
  artifactToProto,
  decisionFromProto,
  formAnswerFromProto,
  messageToProto,
  modeFromProto,
  sessionToProto,
  sortFromProto,
} from "../history/convert.js";
import type { EventBus } from "../events.js";
import type { EngineShield, EngineStore, ToolHost } from "../ports.js";
import { describeClient, isClientPrincipal } from "./credentials.js";
import type { SessionDirectory } from "../history/sessions.js";
import { toolDef } from "../calls/tool-defs.js";
import type { TurnEnv } from "../turns/env.js";
import type { TurnManager } from "../turns/manager.js";
import { callToolForClient } from "../calls/client-call.js";
import { publicUrl } from "../agent/model-label.js";
import { isModelConfigured } from "@palisade/config";

export interface ClientServiceDeps {
  env: TurnEnv;
  turns: TurnManager;
  sessions: SessionDirectory;
  bus: EventBus;
  store: EngineStore;
  host: ToolHost;
  shield: EngineShield;
  approvals: ApprovalBroker;
  status: () => Promise<MessageInitShape<typeof StatusResponseSchema>>;
  shutdown: (deadlineMs: number) => void;
  defaultWorkspace: () => string;
  /** Deletes the artifacts (bytes and metadata) the capability host keeps for a session. */
  purgeArtifacts?: (sessionId: string) => Promise<number>;
  /** The models the endpoint lists, asked by the model gateway (which holds the key). */
  models?: () => Promise<{ models: string[] } | { error: string }>;
}

function clamp(n: number, dflt: number, max: number): number {
  return n <= 0 ? dflt : Math.min(n, max);
}

async function* closeOnAbort(
  events: AsyncIterable<PipelineEvent> & { close(): void },
  ctx: CallContext,
): AsyncIterable<PipelineEvent> {
  // The client going away only stops this stream: the turn itself continues and is stored.
  const onAbort = (): void => events.close();
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  try {
    yield* events;
  } finally {
    ctx.signal.removeEventListener("abort", onAbort);
    events.close();
  }
}

/** A new session's workspace must be an existing directory: refused here, not at the first tool call. */
function needWorkspace(dir: string): void {
  let ok = false;
  try {
    ok = statSync(dir).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok)
    throw new RpcError(
      Code.INVALID_ARGUMENT,
      `the workspace ${dir} does not exist or is not a directory: create it, or give an existing directory (--workspace DIR)`,
    );
}

export function clientService(d: ClientServiceDeps): ServiceImpl<typeof ClientService> {
  const needSession = (id: string): void => {
    if (!id) throw new RpcError(Code.INVALID_ARGUMENT, "session_id is required");
  };
  return {
    async *sendMessage(req, ctx) {
      if (!req.sessionId && req.workspace) needWorkspace(req.workspace);
      const { events } = await d.turns.submit({
        content: req.content,
        sessionId: req.sessionId,
        mode: modeFromProto(req.mode),
        source: req.source || "grpc",
        clientMessageId: req.clientMessageId,
        workspace: req.workspace || d.defaultWorkspace(),
        model: req.model,
      });
      yield* closeOnAbort(events, ctx);
    },

    async resolveApproval(req, ctx) {
      const decision = approvalFromProto(req.decision);
      if (!decision)
        throw new RpcError(Code.INVALID_ARGUMENT, "decision must be ALLOW_ONCE, ALLOW_SESSION, DENY or UNATTENDED");
      // Which credential answered goes to the audit trail (the authorizer ran before this handler).
      const by = isClientPrincipal(ctx.principal) ? describeClient(ctx.principal) : undefined;
      const form = formAnswerFromProto(req.elicitation);
      const refused = d.approvals.resolve(req.approvalId, decision, req.sessionId || undefined, by, req.reason, form);
      // Several Engines on one database: the approval waits in the Engine that serves the session.
      const owner = refused && req.sessionId ? ((await d.store.sessionOwner?.(req.sessionId)) ?? "") : "";
      if (owner)
        return {
          accepted: false,
          message: `session ${req.sessionId} is served by ${owner}: its approvals are answered there`,
        };
      return refused ? { accepted: false, message: refused } : { accepted: true, message: `recorded: ${decision}` };
    },

    getStatus: () => d.status(),

    async listSessions(req) {
      const page = await d.store.listSessions({
        limit: clamp(req.limit, 50, 1000),
        offset: Math.max(0, req.offset),
        sort: sortFromProto(req.sort),
        ...(req.titleFilter ? { titleFilter: req.titleFilter } : {}),
      });
      return { sessions: page.sessions.map(sessionToProto), total: page.total };
    },

    async getHistory(req) {
      needSession(req.sessionId);
      const session = await d.sessions.get(req.sessionId);
      if (!session) throw new RpcError(Code.NOT_FOUND, `session ${req.sessionId} does not exist`);
      const otr = d.sessions.otrHistory(req.sessionId);
      if (otr) return { messages: otr.map(messageToProto), nextCursor: "", session: sessionToProto(session) };
      const page = await d.store.history(req.sessionId, {
        limit: clamp(req.limit, 50, 1000),
        ...(req.cursor ? { cursor: req.cursor } : {}),
      });
      return {
        messages: page.messages.map(messageToProto),
        nextCursor: page.nextCursor,
        session: sessionToProto(session),
      };
    },

    async shutdown(req) {
      d.shutdown(req.deadlineMs > 0 ? req.deadlineMs : 10_000);
      return { accepted: true };
    },

    async cancelMessage(req) {
      needSession(req.sessionId);
      const cancelled = d.turns.cancel(req.sessionId, req.messageId);
      return { cancelled, message: cancelled ? "cancelled" : "no running turn matches" };
    },

    async searchSessions(req) {
      if (!req.query.trim() && !req.toolName)
        throw new RpcError(Code.INVALID_ARGUMENT, "query is empty: give words to search for");
      const decision = decisionFromProto(req.decision);
      const res = await d.store.search({
        query: req.query,
        limit: clamp(req.limit, 20, 200),
        offset: Math.max(0, req.offset),
        ...(req.sessionId ? { sessionId: req.sessionId } : {}),
        ...(req.fromUnixMs > 0n ? { fromMs: Number(req.fromUnixMs) } : {}),
        ...(req.toUnixMs > 0n ? { toMs: Number(req.toUnixMs) } : {}),
        ...(req.role ? { role: req.role } : {}),
        ...(req.toolName ? { toolName: req.toolName } : {}),
        ...(decision ? { decision } : {}),
      });
      return {
        total: res.total,
        hits: res.hits.map((h) => ({ ...h, createdAtUnixMs: BigInt(h.createdAt), seq: BigInt(h.seq) })),
      };
    },

    async deleteSession(req) {
      needSession(req.sessionId);
      for (const t of d.turns.activeTurns)
        if (t.session.id === req.sessionId) d.turns.cancel(t.session.id, t.messageId, "the session was deleted");
      const deleted = await d.sessions.delete(req.sessionId);
      if (deleted) await d.purgeArtifacts?.(req.sessionId);
      d.approvals.forgetSession(req.sessionId);
      d.env.loadedGroups.delete(req.sessionId);
      d.turns.agentHistory.forget(req.sessionId);
      d.bus.closeSession(req.sessionId);
      return { deleted };
    },

    async renameSession(req) {
      needSession(req.sessionId);
      const title = req.title.trim();
      if (!title) throw new RpcError(Code.INVALID_ARGUMENT, "title is empty");
      const session = d.sessions.rename(req.sessionId, title) ?? (await d.store.renameSession(req.sessionId, title));
      if (!session) throw new RpcError(Code.NOT_FOUND, `session ${req.sessionId} does not exist`);
      return { session: sessionToProto(session) };
    },

    async exportSession(req) {
      needSession(req.sessionId);
      const format = req.format === "json" ? "json" : req.format === "md" || req.format === "" ? "md" : undefined;
      if (!format)
        throw new RpcError(Code.INVALID_ARGUMENT, `format must be "md" or "json", got ${JSON.stringify(req.format)}`);
      if (d.sessions.isOtr(req.sessionId))
        throw new RpcError(Code.FAILED_PRECONDITION, "off-the-record sessions cannot be exported");
      const out = await d.store.exportSession(req.sessionId, format);
      if (!out) throw new RpcError(Code.NOT_FOUND, `session ${req.sessionId} does not exist`);
      return out;
    },

    async createSession(req) {
      if (req.workspace) needWorkspace(req.workspace);
      const session = await d.sessions.create({
        mode: modeFromProto(req.mode),
        workspace: req.workspace || d.defaultWorkspace(),
        ...(req.title ? { title: req.title } : {}),
        ...(req.model ? { model: req.model } : {}),
      });
      return { session: sessionToProto(session) };
    },

    async *watchSession(req, ctx) {
      needSession(req.sessionId);
      if (!(await d.sessions.get(req.sessionId)))
        throw new RpcError(Code.NOT_FOUND, `session ${req.sessionId} does not exist`);
      const sub = d.bus.subscribe(req.sessionId);
      yield* closeOnAbort(sub, ctx);
    },

    async listTools() {
      const tools = d.host.catalog().map((t) => {
        const kind = typeof t.semantics?.["kind"] === "string" ? t.semantics["kind"] : undefined;
        const { policy, rules } = d.shield.toolPolicy?.(t.name, t.policy, kind) ?? {
          policy: d.shield.effectivePolicy(t.name, t.policy),
          rules: [],
        };
        const policyRules = rules.map((r) => ({ ruleId: r.id, decision: r.decision, description: r.description }));
        return {
          def: toolDef(t),
          capabilityId: t.capabilityId,
          policy,
          requiresConfirmation: policy === "ask",
          policyRules,
        };
      });
      return { tools, groups: d.host.groups() };
    },

    async listModels() {
      const model = d.env.config.model;
      const base = { configured: model.name, baseUrl: publicUrl(model.baseUrl) };
      if (!isModelConfigured(model))
        return { ...base, answered: false, error: "no model endpoint is configured (model.base_url in config.yaml)" };
      if (!d.models) return { ...base, answered: false, error: "this Engine has no model gateway to ask" };
      const r = await d.models();
      return "models" in r
        ? { ...base, answered: true, models: r.models }
        : { ...base, answered: false, error: r.error };
    },

    async listSubAgents() {
      // Sub-agents are a later issue; the seam is SubAgentService (services/sub-agent.ts).
      return { agents: [] };
    },

    callTool: (req, ctx) =>
      callToolForClient(
        {
          env: d.env,
          caller: isClientPrincipal(ctx.principal) ? describeClient(ctx.principal) : "unknown client",
          session: (id) => d.sessions.get(id),
          newSession: (workspace) => {
            if (workspace) needWorkspace(workspace);
            return d.sessions.create({
              mode: "normal",
              workspace: workspace ?? d.defaultWorkspace(),
              title: "capability call",
            });
          },
        },
        req,
        ctx.signal,
      ),

    async *getArtifact(req) {
      needSession(req.sessionId);
      if (!req.artifactId) throw new RpcError(Code.INVALID_ARGUMENT, "artifact_id is required");
      const found = await d.host.artifact(req.sessionId, req.artifactId);
      if (!found)
        throw new RpcError(Code.NOT_FOUND, `artifact ${req.artifactId} does not exist in session ${req.sessionId}`);
      yield { artifact: artifactToProto(found.info), done: false };
      for await (const chunk of found.data) yield { data: chunk, done: false };
      yield { done: true };
    },
  };
}
