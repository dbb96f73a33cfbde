import { execFile } from "node:child_process";
import { CapabilityError } from "../errors.js";
import type { Manifest } from "../manifest/types.js";

/** Port Selu capability containers listen on. */
export const CONTAINER_PORT = 50051;
/** Internal (no outside connectivity) Docker network used for `network.mode: none`. */
export const INTERNAL_NETWORK = "palisade-none";

export interface DockerRunSpec {
  image: string;
  containerName: string;
  manifest: Pick<Manifest, "network" | "filesystem" | "resources">;
  /** Host port to publish on 127.0.0.1 (network modes allowlist/any). */
  hostPort: number;
  /** Host directory mounted at /workspace for `filesystem: workspace`. */
  workspaceDir?: string;
  /** Extra environment (never credentials: those go in config_json). */
  env?: Record<string, string>;
}

/**
 * The `docker run` arguments for a capability (pure). Limits come from the manifest:
 * memory (no extra swap), cpus, pids; read-only root, all Linux capabilities dropped,
 * no privilege escalation. `network.mode: none` puts the container on an internal network
 * with no route out (a container on `--network none` could not be reached by the Engine
 * either); other modes publish the gRPC port on 127.0.0.1 only.
 */
export function dockerRunArgs(spec: DockerRunSpec): string[] {
  const { resources, network, filesystem } = spec.manifest;
  const args = [
    "run",
    "--rm",
    "--detach",
    "--name",
    spec.containerName,
    "--label",
    "palisade.capability=1",
    "--memory",
    `${resources.maxMemoryMb}m`,
    "--memory-swap",
    `${resources.maxMemoryMb}m`,
    "--cpus",
    String(resources.maxCpuFraction),
    "--pids-limit",
    String(resources.pidsLimit),
    "--read-only",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--env",
    `PORT=${CONTAINER_PORT}`,
  ];
  for (const [k, v] of Object.entries(spec.env ?? {})) args.push("--env", `${k}=${v}`);
  if (filesystem === "temp") args.push("--tmpfs", "/tmp:rw,noexec,nosuid,size=64m");
  if (filesystem === "workspace") {
    if (!spec.workspaceDir)
      throw new CapabilityError("launch", "filesystem: workspace needs a workspace directory to mount");
    args.push(
      "--tmpfs",
      "/tmp:rw,noexec,nosuid,size=64m",
      "--volume",
      `${spec.workspaceDir}:/workspace:rw`,
      "--workdir",
      "/workspace",
    );
  }
  if (network.mode === "none") args.push("--network", INTERNAL_NETWORK);
  else args.push("--publish", `127.0.0.1:${spec.hostPort}:${CONTAINER_PORT}`);
  args.push(spec.image);
  return args;
}

export function run(
  cmd: string,
  args: string[],
  timeoutMs = 10_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: timeoutMs, encoding: "utf8" }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
      resolve({ code, stdout, stderr: stderr || (err && code === -1 ? err.message : "") });
    });
  });
}

/** Throws a `launch` error saying Docker is unavailable when `docker info` fails. */
export async function requireDocker(capabilityId: string, image: string, docker = "docker"): Promise<void> {
  const res = await run(docker, ["info", "--format", "{{.ServerVersion}}"]);
  if (res.code === 0) return;
  const reason =
    (res.stderr || res.stdout)
      .trim()
      .split("\n")
      .find((l) => l.trim() !== "") ?? `exit code ${res.code}`;
  throw new CapabilityError(
    "launch",
    `capability ${capabilityId} runs from image ${image}, but Docker is unavailable (\`docker info\` failed: ${reason}). ` +
      "Start a Docker engine, or run the capability with `command:` (a local process) or `address:` (an already running server) in the Palisade config.",
  );
}
