// The credential each service of the Engine's one gRPC server demands, checked on the call's
// metadata before the request body is read (RpcServer runs these as its authorizers):
// ClientService the client token of the data dir, AgentService the Agent's spawn token (see
// agent/link.ts), SubAgentService a running sub-agent's spawn token (see subagents/).
import { createHash } from "node:crypto";
import { stat } from "node:fs/promises";
import { dirname } from "node:path";
import type { Metadata } from "@grpc/grpc-js";
import { Code, DEFAULT_MAX_MESSAGE_BYTES, RpcError } from "@palisade/protocol";
import type { ServiceAuthorizer } from "@palisade/protocol";
import { safeEqual } from "../agent/link.js";
import { EngineError } from "../errors.js";

// ClientService's limit is config `limits.client_max_message` (default 1 MiB): client requests
// are small (a message, an approval).
/** The Agent's events (tokens, tool proposals, final texts) stay far below the transport's 16 MiB. */
export const AGENT_MAX_MESSAGE_BYTES = DEFAULT_MAX_MESSAGE_BYTES;
/** A sub-agent's tool arguments and final result. */
export const SUBAGENT_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/** The token of `authorization: Bearer <token>`, or "". */
export function bearerOf(md: Metadata): string {
  const v = md.get("authorization")[0];
  const s = typeof v === "string" ? v : v ? v.toString() : "";
  return s.startsWith("Bearer ") ? s.slice(7) : "";
}

/** A short, stable name of a token that reveals nothing usable about it (for logs and the audit trail). */
export function tokenId(token: string): string {
  return createHash("sha256").update(token).digest("hex").slice(0, 12);
}

/** Who answered a ClientService call: which credential, over which transport. */
export interface ClientPrincipal {
  kind: "client";
  /** `client-token:<id>`: the id is tokenId() of the token presented. */
  credential: string;
  /** `unix:<socket>` or `tcp:<peer address>`. */
  transport: string;
}

export function isClientPrincipal(p: unknown): p is ClientPrincipal {
  return typeof p === "object" && p !== null && (p as { kind?: unknown }).kind === "client";
}

/** How a ClientPrincipal is written in events and the audit trail. */
export function describeClient(p: ClientPrincipal): string {
  return `${p.credential} via ${p.transport}`;
}

/** ClientService's authorizer: the client token, compared in constant time. */
export function clientAuthorizer(token: string, tokenFile: string, socket: string | undefined): ServiceAuthorizer {
  const credential = `client-token:${tokenId(token)}`;
  return (md, call) => {
    if (!safeEqual(bearerOf(md), token)) {
      throw new RpcError(
        Code.UNAUTHENTICATED,
        `ClientService needs the client token: send 'authorization: Bearer <token>' with the token read from ${tokenFile} (readable by the Engine's user only)`,
      );
    }
    const principal: ClientPrincipal = {
      kind: "client",
      credential,
      transport: socket ? `unix:${socket}` : `tcp:${call.peer}`,
    };
    return principal;
  };
}

/**
 * Refuses a unix socket path whose directory another user could enter or change. The socket is
 * made 0600 and connecting to a unix socket needs write permission on it, so in a directory owned
 * by the Engine's user and closed to others (0700) only processes of that user can reach it
 * (root aside, who can read the client token anyway): the same-uid check SO_PEERCRED would give,
 * without a native module. The directory also closes the moment between bind and chmod.
 */
export async function checkSocketDir(socket: string): Promise<void> {
  const dir = dirname(socket);
  const st = await stat(dir);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new EngineError(
      "UNSAFE_SOCKET_DIR",
      `the socket directory ${dir} belongs to uid ${String(st.uid)}, not to the Engine's user (uid ${String(uid)}); put the socket in a directory of your own`,
    );
  }
  if ((st.mode & 0o077) !== 0) {
    throw new EngineError(
      "UNSAFE_SOCKET_DIR",
      `the socket directory ${dir} is open to other users (mode ${(st.mode & 0o777).toString(8)}); make it private with: chmod 700 ${dir}`,
    );
  }
}
