// How the Agent and sub-agents are walled in, decided once per Engine from the tool sandbox probe
// and `sandbox.required`, the same rule tools follow: in bubblewrap from an empty root where it
// runs; where it cannot, refused unless the config says `sandbox.required: false`, in which
// case they run as before bubblewrap (Node's permission model in a network namespace of their
// own) and the Engine says so.
import { realpathSync } from "node:fs";
import type { LaunchSpec } from "@palisade/agent";
import { unixSocketPath } from "@palisade/protocol";
import { agentViewArgs, sharedLibraries, socketDirs } from "@palisade/sandbox";
import type { SandboxProbe } from "@palisade/sandbox";
import { EngineError } from "../errors.js";
import type { AgentLaunch } from "../ports.js";

export type AgentWall =
  | { kind: "bubblewrap"; bwrap: string; version: string; libraries: string[] }
  /** `sandbox.required: false` where bubblewrap cannot run: the permission model and a network namespace only. */
  | { kind: "permissions"; reason: string }
  | { kind: "refused"; reason: string };

/** The namespaces the Agent's bubblewrap view gives it, as /proc names them. */
export const BUBBLEWRAP_NAMESPACES: readonly string[] = ["user", "pid", "mnt", "ipc", "uts", "net"];

/** The Agent cannot be started: bubblewrap is unavailable and the config requires a sandbox. */
export class AgentWallError extends EngineError {
  constructor(reason: string) {
    super("AGENT_SANDBOX_UNAVAILABLE", reason);
  }
}

let libraries: Promise<string[]> | undefined;

/** The libraries this process's Node loads (ldd), looked up once per process. */
export function nodeLibrariesOnce(): Promise<string[]> {
  libraries ??= sharedLibraries(realpathSync(process.execPath));
  return libraries;
}

export async function chooseAgentWall(probe: SandboxProbe, required: boolean): Promise<AgentWall> {
  if (probe.available && probe.bwrap) {
    const libraries = await nodeLibrariesOnce();
    return { kind: "bubblewrap", bwrap: probe.bwrap, version: probe.version ?? "", libraries };
  }
  const why = probe.reason ?? "bubblewrap cannot run here";
  if (required) {
    return {
      kind: "refused",
      reason: `the Agent must run in a bubblewrap sandbox, but none can be made here: ${why}. Install bubblewrap (apt-get install bubblewrap), or set \`sandbox: {required: false}\` in the config to run the Agent with Node's permission model and a network namespace only`,
    };
  }
  return { kind: "permissions", reason: why };
}

/** One line for the start log and `engine status`. */
export function agentWallLine(wall: AgentWall): string {
  switch (wall.kind) {
    case "bubblewrap":
      return `agent sandbox: bubblewrap ${wall.version}, an empty root (its code, Node and the Engine's sockets only; own user, pid, IPC and network namespaces)`.replace(
        "  ",
        " ",
      );
    case "permissions":
      return `agent sandbox: NO bubblewrap (${wall.reason}); sandbox.required is false: the Agent runs with Node's permission model and a network namespace only, and can reach the user's unix sockets and signal the user's processes (see docs/security.md)`;
    case "refused":
      return `agent sandbox: UNAVAILABLE: ${wall.reason}`;
  }
}

/** What the Agent's launch spec needs from the view: where the Engine's sockets are inside. */
export interface SocketsInside {
  engineAddress: string;
  modelGateway: string;
}

/**
 * Runs a launch (built by `spec` for the socket paths it will see) in the Agent's bubblewrap
 * view: its code (the spec's read grants), Node, its libraries, the sockets' directory.
 */
export function inAgentView(
  wall: Extract<AgentWall, { kind: "bubblewrap" }>,
  hostSockets: SocketsInside,
  spec: (inside: SocketsInside) => LaunchSpec,
): AgentLaunch {
  const engineSocket = unixSocketPath(hostSockets.engineAddress);
  if (!engineSocket)
    throw new AgentWallError(
      `the Agent reaches the Engine by a unix socket only (it has no network), not ${hostSockets.engineAddress}`,
    );
  const sockets = socketDirs([engineSocket, hostSockets.modelGateway]);
  const launch = spec({
    engineAddress: `unix:${sockets.inside(engineSocket)}`,
    modelGateway: sockets.inside(hostSockets.modelGateway),
  });
  const view = agentViewArgs({ node: launch.command, libraries: wall.libraries, code: launch.readPaths, sockets });
  return { command: wall.bwrap, args: [...view, launch.command, ...launch.args], env: launch.env };
}
