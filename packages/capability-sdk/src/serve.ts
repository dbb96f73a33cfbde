import { RpcServer } from "@palisade/protocol";
import type { Authorizer } from "@palisade/protocol";
import { Capability } from "@palisade/protocol/capability";
import { ArtifactStore, DEFAULT_ARTIFACT_TTL_MS, DEFAULT_MAX_ARTIFACT_BYTES } from "./artifacts.js";
import { MIN_SECRET_LENGTH, secretAuthorizer } from "./auth.js";
import type { CapabilityDefinition } from "./define.js";
import { LaunchError, SOCKET_ENV, readLaunchSecret } from "./launch.js";
import type { Reporter } from "./invoke.js";
import { capabilityService } from "./service.js";

export const DEFAULT_PORT = 50051;
export const DEFAULT_HOST = "127.0.0.1";

export interface ServeOptions {
  /** TCP port; default: env `PORT`, else 50051 (as in Selu containers). 0 picks a free port. */
  port?: number;
  /** Interface to bind; default: env `HOST`, else 127.0.0.1. Use 0.0.0.0 inside a container. */
  host?: string;
  /** Full listen address (`host:port` or `unix:/path`); overrides `host` and `port`. */
  address?: string;
  /** On SIGTERM/SIGINT: stop accepting calls, let running ones finish, exit 0. Default false. */
  handleSignals?: boolean;
  /** Time running calls get to finish on close before they are cancelled (default 5000 ms). */
  gracePeriodMs?: number;
  /** Largest accepted UploadInputArtifact (default 5 MiB). */
  maxUploadBytes?: number;
  /** How long stored artifacts are kept (default 6 h). */
  artifactTtlMs?: number;
  /** Environment to read PORT/HOST from (default process.env). */
  env?: Record<string, string | undefined>;
  /** Where diagnostics go (default: stderr). */
  log?: (line: string) => void;
  /**
   * Every call must carry `authorization: Bearer <secret>` (checked in constant time before the
   * request is read). Not needed when the Engine launched the capability: it passes one.
   */
  secret?: string;
  /**
   * Serve without any authentication, for local development only (prints a warning). Also
   * turned on by `--insecure-dev` in `argv`. Without it, a secret or an Engine launch is required.
   */
  insecureDev?: boolean;
  /** Command-line arguments checked for `--insecure-dev` (default process.argv). */
  argv?: readonly string[];
  /** Where an Engine-launched capability reads its secret, and watches for the Engine's end (default process.stdin). */
  stdin?: NodeJS.ReadableStream;
  /** What an Engine-launched capability does once the Engine is gone (default: stop, then exit the process). */
  onEngineGone?: (server: CapabilityServer) => void;
}

export interface CapabilityServer {
  readonly id: string;
  /** The address clients dial, e.g. `127.0.0.1:50051`. */
  readonly address: string;
  /** Graceful stop: refuses new calls, waits up to the grace period, then cancels the rest. */
  close(): Promise<void>;
  /** Resolves once the server has stopped (after close() or a handled signal). */
  readonly closed: Promise<void>;
}

/** The flag that runs a capability without authentication, for development. */
export const INSECURE_DEV_FLAG = "--insecure-dev";

/**
 * Time calls still running get when the Engine is gone (their results have nowhere to go):
 * then they are cancelled, so their handlers stop what they started (e.g. a shell command's
 * process group), and the process exits, all within the Engine's 2 s.
 */
const ENGINE_GONE_GRACE_MS = 100;

interface Channel {
  target: string;
  /** Absent only for --insecure-dev. */
  authorize?: Authorizer;
  /** Set when the Engine launched us: its pipe's end stops the server. */
  launched: boolean;
}

/**
 * How the server is reached and who may call it. Launched by the Engine (PALISADE_CAPABILITY_SOCKET
 * set): its unix socket and the secret from stdin. Otherwise an explicit `secret`, or nothing at all
 * with `insecureDev` / `--insecure-dev`; anything else refuses to start.
 */
async function channelFor(
  cap: CapabilityDefinition,
  options: ServeOptions,
  env: Record<string, string | undefined>,
  onEngineGone: () => void,
  log: (line: string) => void,
): Promise<Channel> {
  const socket = env[SOCKET_ENV];
  if (socket !== undefined && options.address === undefined && options.secret === undefined) {
    if (!socket.startsWith("/"))
      throw new LaunchError(`capability ${cap.id}: ${SOCKET_ENV} must be an absolute socket path, got "${socket}"`);
    const secret = await readLaunchSecret(options.stdin ?? process.stdin, onEngineGone);
    return { target: `unix:${socket}`, authorize: secretAuthorizer(secret), launched: true };
  }
  const target = listenAddress(options, env);
  if (options.secret !== undefined) {
    if (options.secret.length < MIN_SECRET_LENGTH)
      throw new LaunchError(`capability ${cap.id}: the secret option must be at least ${MIN_SECRET_LENGTH} characters`);
    return { target, authorize: secretAuthorizer(options.secret), launched: false };
  }
  if (options.insecureDev === true || (options.argv ?? process.argv).includes(INSECURE_DEV_FLAG)) {
    log(
      `WARNING: capability ${cap.id} serves WITHOUT authentication (${INSECURE_DEV_FLAG}): any process that can reach ${target} can call its tools. Use this only for development.`,
    );
    return { target, launched: false };
  }
  throw new LaunchError(
    `capability ${cap.id} has no launch secret, so it refuses to serve: the Palisade Engine launches it with one ` +
      `(set protocol: palisade on its entry in the Palisade config). To run it standalone for development, pass ${INSECURE_DEV_FLAG}.`,
  );
}

/** Serves `cap` over gRPC and prints `capability <id> listening on <address>` to stderr. */
export async function serveCapability(
  cap: CapabilityDefinition,
  options: ServeOptions = {},
): Promise<CapabilityServer> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const report: Reporter = (message, err) => {
    const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
    log(`capability ${cap.id}: ${message}${err === undefined ? "" : `: ${detail}`}`);
  };
  // The Engine may be gone before the server exists (its pipe can end at any time).
  const launch: { server?: CapabilityServer; engineGone: boolean } = { engineGone: false };
  const onEngineGone = (): void => {
    launch.engineGone = true;
    if (launch.server) goneHandler(launch.server);
  };
  const goneHandler = (s: CapabilityServer): void => {
    // The Engine held our stdout and stderr too: a write now fails with EPIPE, which must not
    // crash the process before its running calls are cancelled.
    for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
    log(`capability ${cap.id}: the Engine that launched it is gone (its pipe closed); stopping`);
    if (options.onEngineGone) return options.onEngineGone(s);
    // Exit even if stopping hangs: a capability must not outlive its Engine.
    setTimeout(() => process.exit(0), ENGINE_GONE_GRACE_MS + 500).unref();
    void s.close().finally(() => process.exit(0));
  };
  const channel = await channelFor(cap, options, env, onEngineGone, log);
  const store = new ArtifactStore({ ttlMs: options.artifactTtlMs ?? DEFAULT_ARTIFACT_TTL_MS });
  const rpc = new RpcServer({
    onInternalError: (err, path) => report(`internal error in ${path}`, err),
    ...(channel.authorize ? { authorize: channel.authorize } : {}),
  });
  rpc.add(
    Capability,
    capabilityService(cap, { store, report, maxUploadBytes: options.maxUploadBytes ?? DEFAULT_MAX_ARTIFACT_BYTES }),
  );

  const target = channel.target;
  let address: string;
  try {
    address = await rpc.listen(target);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(
      `capability ${cap.id} could not listen on ${target}: ${why}; set PORT (or the port option) to a free port`,
      { cause: err },
    );
  }
  log(`capability ${cap.id} listening on ${address}`);

  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let closing: Promise<void> | undefined;
  const signals: NodeJS.Signals[] = ["SIGTERM", "SIGINT"];
  const close = (): Promise<void> => {
    closing ??= (async () => {
      for (const s of signals) process.off(s, onSignal);
      await rpc.close(launch.engineGone ? ENGINE_GONE_GRACE_MS : (options.gracePeriodMs ?? 5000));
      resolveClosed();
    })();
    return closing;
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (closing) {
      log(`capability ${cap.id}: ${signal} again, exiting now`);
      process.exit(1);
    }
    log(`capability ${cap.id}: ${signal} received, stopping`);
    close().then(
      () => {
        log(`capability ${cap.id} stopped`);
        process.exit(0);
      },
      (err: unknown) => {
        report("failed to stop", err);
        process.exit(1);
      },
    );
  };
  if (options.handleSignals) for (const s of signals) process.on(s, onSignal);

  const server: CapabilityServer = { id: cap.id, address, close, closed };
  launch.server = server;
  if (channel.launched && launch.engineGone) goneHandler(server);
  return server;
}

function listenAddress(options: ServeOptions, env: Record<string, string | undefined>): string {
  if (options.address) return options.address;
  const port = options.port ?? parsePort(env.PORT);
  const host = options.host ?? (env.HOST || DEFAULT_HOST);
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return `${bracketed}:${port}`;
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === "") return DEFAULT_PORT;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be an integer from 0 to 65535, got "${raw}"; unset it to use ${DEFAULT_PORT}`);
  }
  return port;
}
