import { RpcServer } from "@palisade/protocol";
import { Capability } from "@palisade/protocol/capability";
import { ArtifactStore, DEFAULT_ARTIFACT_TTL_MS, DEFAULT_MAX_ARTIFACT_BYTES } from "./artifacts.js";
import type { CapabilityDefinition } from "./define.js";
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

/** Serves `cap` over gRPC and prints `capability <id> listening on <address>` to stderr. */
export async function serveCapability(cap: CapabilityDefinition, options: ServeOptions = {}): Promise<CapabilityServer> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const report: Reporter = (message, err) => {
    const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
    log(`capability ${cap.id}: ${message}${err === undefined ? "" : `: ${detail}`}`);
  };
  const store = new ArtifactStore({ ttlMs: options.artifactTtlMs ?? DEFAULT_ARTIFACT_TTL_MS });
  const rpc = new RpcServer({ onInternalError: (err, path) => report(`internal error in ${path}`, err) });
  rpc.add(Capability, capabilityService(cap, { store, report, maxUploadBytes: options.maxUploadBytes ?? DEFAULT_MAX_ARTIFACT_BYTES }));

  const target = listenAddress(options, env);
  let address: string;
  try {
    address = await rpc.listen(target);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(`capability ${cap.id} could not listen on ${target}: ${why}; set PORT (or the port option) to a free port`, { cause: err });
  }
  log(`capability ${cap.id} listening on ${address}`);

  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let closing: Promise<void> | undefined;
  const signals: NodeJS.Signals[] = ["SIGTERM", "SIGINT"];
  const close = (): Promise<void> => {
    closing ??= (async () => {
      for (const s of signals) process.off(s, onSignal);
      await rpc.close(options.gracePeriodMs ?? 5000);
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

  return { id: cap.id, address, close, closed };
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
