// Runs code as the Agent runs: the command line, environment and namespaces the Engine's own
// launcher gives the Agent (the launcher under test), with the Agent's entry point replaced by
// a probe given as `-e` source. The probes are in ./agent-probes; each prints one JSON object.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { agentLauncher, chooseAgentWall, defaultSubAgentLauncher } from "@palisade/engine";
import { defaultConfig } from "@palisade/config";
import { probeSandboxOnce } from "@palisade/sandbox";
import type { AgentLaunch } from "@palisade/engine";

const here = dirname(fileURLToPath(import.meta.url));

export interface ProbeRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The probe's JSON answer (undefined when it printed none). */
  result: Record<string, unknown> | undefined;
}

/** The Agent's launch as the Engine makes it, for an Engine whose private runtime directory is `runtimeDir`. */
/** The configured model server, with a password and a query key: neither may reach the Agent. */
export const MODEL_BASE_URL = "http://agent-user:pw-in-url-3e9a@127.0.0.1:9/v1?api-key=query-secret-77c1";

/** Who is launched: the Agent, or a sub-agent (its own package and environment, the same wall). */
export type Launched = "agent" | "subagent";

export async function agentLaunchFor(runtimeDir: string, who: Launched = "agent"): Promise<AgentLaunch> {
  const config = defaultConfig();
  // As the Engine decides it, with the default sandbox.required: true.
  const wall = await chooseAgentWall(await probeSandboxOnce(), true);
  const request = {
    engineAddress: `unix:${join(runtimeDir, "engine.sock")}`,
    modelGateway: join(runtimeDir, "model-gateway.sock"),
    token: "unused",
    model: { ...config.model, name: "scripted-model", baseUrl: MODEL_BASE_URL },
  };
  return who === "agent"
    ? agentLauncher(wall)({ ...request, agentId: "probe" })
    : defaultSubAgentLauncher(() => wall)({ ...request, name: "probe" });
}

/** Runs `agent-probes/<probe>.cjs` with the Agent's launch, `input` as its one argument. */
export async function runLikeAgent(
  probe: string,
  input: unknown,
  options: { runtimeDir: string; cwd?: string; timeoutMs?: number; widenReads?: boolean; who?: Launched },
): Promise<ProbeRun> {
  const launch = await agentLaunchFor(options.runtimeDir, options.who);
  const code = readFileSync(join(here, "agent-probes", `${probe}.cjs`), "utf8");
  // The entry point is the last argument, in every launch.
  let flags = launch.args.slice(0, -1);
  // widenReads: the permission model may read everything, so the probe sees what the outer wall shows.
  if (options.widenReads)
    flags = flags
      .filter((a) => !a.startsWith("--allow-fs-read="))
      .flatMap((a) => (a === "--permission" ? [a, "--allow-fs-read=*"] : [a]));
  const args = [...flags, "-e", code, JSON.stringify(input)];
  const child = spawn(launch.command, args, {
    env: launch.env,
    cwd: options.cwd ?? options.runtimeDir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20_000);
  const status = await new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  clearTimeout(timer);
  let result: Record<string, unknown> | undefined;
  try {
    result = JSON.parse(stdout) as Record<string, unknown>;
  } catch {
    result = undefined;
  }
  return { status, stdout, stderr, result };
}
