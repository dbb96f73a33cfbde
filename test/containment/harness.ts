// A real Engine for the containment proofs: the scripted model asks for tool calls, a client
// approves every escalation, the built-in files and shell capabilities run as they would for a
// user. Everything lives under /var/tmp (not /tmp, which is private inside a sandbox anyway), with
// its own HOME holding canary secrets, so each escape attempt can be checked by its effect.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createClient } from "@palisade/protocol";
import type { Client } from "@palisade/protocol";
import { ApprovalDecision, VerdictDecision } from "@palisade/protocol/types";
import { ClientService, PipelineEventType as T } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { DETECTORS, builtinPolicyPath } from "@palisade/shield";
import { messageText, startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { startEngine } from "@palisade/engine";
import { loadConfig } from "@palisade/config";
import type { RunningEngine } from "@palisade/engine";

export const CANARY = {
  env: "CANARY-ENV-7f3a9c",
  apiKey: "sk-CANARY-KEY-51d2e8",
  ssh: "CANARY-SSH-KEY-a8e1",
  outside: "CANARY-OUTSIDE-FILE-c0de",
};

/** The permissive policy with every detector disabled: the Shield stops nothing. */
export function shieldOffPolicy(): string {
  const permissive = readFileSync(builtinPolicyPath("permissive"), "utf8");
  const ids = [...new Set([...DETECTORS.map((d) => d.id), "exfil.credential-egress"])];
  return `${permissive}\ndetectors:\n  disable:\n${ids.map((id) => `    - ${id}`).join("\n")}\n`;
}

export interface Containment {
  root: string;
  home: string;
  dataDir: string;
  workspace: string;
  /** A directory outside the workspace, visible on the host: markers must never appear here. */
  outside: string;
  model: ScriptedServer;
  engine: RunningEngine;
  client: Client<typeof ClientService>;
  logs: string[];
  /** One turn in which the model makes `calls` (after loading the files and shell tools). */
  turn(calls: Array<{ name: string; arguments: Record<string, unknown> }>): Promise<TurnResult>;
  /** One execute_command call; the result the model saw. */
  sh(command: string, timeoutMs?: number): Promise<TurnResult>;
  close(): Promise<void>;
}

export interface TurnResult {
  events: PipelineEvent[];
  /** What the model was told for each call (tool messages, in order). */
  results: string[];
  /** Shield decisions of the calls (e.g. ALLOW, ESCALATE). */
  verdicts: string[];
  /** Calls that were executed by a capability (ACTION_COMPLETED seen). */
  executed: number;
}

export interface ContainmentOptions {
  policy: "shield-off" | "default";
  /**
   * Config lines for the capabilities besides files and shell (default: http, documents and mail
   * disabled). `{workspace}` in a line stands for the workspace's path.
   */
  capabilities?: string[];
  /** More top-level config lines (e.g. a `sandbox:` section). */
  extraConfig?: string[];
  /** Tool groups the model loads before its calls (default files and shell). */
  groups?: string[];
}

export async function startContainment(opts: ContainmentOptions): Promise<Containment> {
  const root = mkdtempSync("/var/tmp/pal-cont-");
  const home = join(root, "home");
  const dataDir = join(root, "data");
  const workspace = join(root, "ws");
  const outside = join(root, "outside");
  for (const d of [home, join(home, ".ssh"), join(home, ".aws"), dataDir, workspace, outside, join(root, "cfg")])
    mkdirSync(d, { recursive: true });
  writeFileSync(join(home, ".ssh", "id_ed25519"), `${CANARY.ssh}\n`);
  writeFileSync(join(home, ".aws", "credentials"), `aws_secret_access_key = ${CANARY.ssh}\n`);
  writeFileSync(join(home, ".bashrc"), "# original bashrc\n");
  writeFileSync(join(outside, "secret.txt"), `${CANARY.outside}\n`);
  writeFileSync(join(workspace, "README.md"), "hello containment\n");
  const policyFile = join(root, "cfg", "policy.yaml");
  if (opts.policy === "shield-off") writeFileSync(policyFile, shieldOffPolicy());
  const model = await startScriptedServer({});
  const configPath = join(root, "cfg", "config.yaml");
  writeFileSync(
    configPath,
    [
      "model:",
      `  base_url: ${model.baseURL}`,
      `  api_key: ${CANARY.apiKey}`,
      "  name: scripted-model",
      "shield:",
      opts.policy === "shield-off" ? `  policy_file: ${policyFile}` : "  policy: default",
      "capabilities:",
      ...(opts.capabilities ?? ["http", "documents", "mail"].map((id) => `  - { id: ${id}, enabled: false }`)).map(
        (l) => l.replaceAll("{workspace}", workspace),
      ),
      ...(opts.extraConfig ?? []),
      `workspace: ${workspace}`,
      "history:",
      "  auto_title: false",
    ].join("\n"),
    { mode: 0o600 }, // it holds model.api_key
  );
  // The Engine and every process it starts see this HOME and this secret in their environment.
  const saved = { HOME: process.env.HOME, CANARY: process.env.PALISADE_CANARY };
  process.env.HOME = home;
  process.env.PALISADE_CANARY = CANARY.env;
  const logs: string[] = [];
  const config = await loadConfig(configPath, {});
  const engine = await startEngine({ dataDir, config, env: {}, log: (l) => logs.push(l) });
  await engine.agentReady(60_000); // a bound for an Agent that never connects, not a measure
  const client = createClient(ClientService, engine.address, { bearerToken: engine.bearerToken });

  const turn = async (calls: Array<{ name: string; arguments: Record<string, unknown> }>): Promise<TurnResult> => {
    // A turn that failed halfway leaves its replies behind: each turn starts from an empty queue.
    model.clearTurns();
    const before = model.chatRequests().length;
    model.enqueue(
      { toolCalls: [{ name: "load_tools", arguments: { groups: opts.groups ?? ["files", "shell"] } }] },
      { toolCalls: calls },
      { content: "done" },
    );
    const events: PipelineEvent[] = [];
    for await (const ev of client.sendMessage({ content: "go" })) {
      events.push(ev);
      // The user approves everything the Shield asks about.
      if (ev.eventType === T.APPROVAL_NEEDED && ev.approvalNeeded) {
        await client.resolveApproval({
          approvalId: ev.approvalNeeded.approvalId,
          decision: ApprovalDecision.ALLOW_ONCE,
          sessionId: ev.sessionId,
        });
      }
    }
    const third = model.chatRequests()[before + 2];
    const results = (third?.messages ?? [])
      .filter((m) => m.role === "tool")
      .slice(-calls.length)
      .map((m) => messageText(m));
    return {
      events,
      results,
      verdicts: events
        .filter((e) => e.eventType === T.SHIELD_VERDICT && e.shieldVerdict?.toolName !== "load_tools")
        .map((e) => VerdictDecision[e.shieldVerdict?.decision ?? 0] ?? "?"),
      executed: events.filter(
        (e) => e.eventType === T.ACTION_COMPLETED && !e.actionCompleted?.toolName.startsWith("load_tools"),
      ).length,
    };
  };

  return {
    root,
    home,
    dataDir,
    workspace,
    outside,
    model,
    engine,
    client,
    logs,
    turn,
    sh: (command, timeoutMs = 30_000) =>
      turn([{ name: "shell__execute_command", arguments: { command, timeout_ms: timeoutMs } }]),
    async close() {
      client.close();
      await engine.stop(3000);
      await model.close();
      process.env.HOME = saved.HOME;
      if (saved.CANARY === undefined) delete process.env.PALISADE_CANARY;
      else process.env.PALISADE_CANARY = saved.CANARY;
      rmSync(root, { recursive: true, force: true });
    },
  };
}
