// How the Engine reaches a capability, and what that channel lets others do. The description
// goes into the capability's status and `capability list`, so an unauthenticated channel is
// never silent.
import { readFileSync } from "node:fs";
import { credentials } from "@grpc/grpc-js";
import type { ChannelCredentials, ChannelOptions } from "@grpc/grpc-js";
import type { CapabilityConfig } from "../config.js";
import { isLoopbackAddress } from "../config.js";
import { CapabilityError } from "../errors.js";

export type ChannelKind =
  "socket+secret" | "loopback-tcp" | "unix-address" | "tls" | "mtls" | "insecure-tcp" | "docker";

export interface ChannelInfo {
  kind: ChannelKind;
  /** One line for people: what the channel is and who else can use it. */
  description: string;
  /** Set when the channel lets other local processes (or the network) call the capability. */
  warning?: string;
}

/** What the channel of a configured capability will be (pure: from config only). */
export function describeChannel(
  c: Pick<CapabilityConfig, "id" | "command" | "protocol" | "address" | "tls" | "insecure" | "image">,
  image?: string,
): ChannelInfo {
  if (c.command) {
    if (c.protocol === "palisade")
      return {
        kind: "socket+secret",
        description: "unix socket in the Engine's 0700 runtime directory, per-launch secret on every call",
      };
    return {
      kind: "loopback-tcp",
      description: "loopback TCP (Selu PORT convention), unauthenticated",
      warning:
        `capability ${c.id} is a Selu-convention server on loopback TCP without authentication: any local process (any user) can call its tools directly, ` +
        "without the Shield or an audit record. Use protocol: palisade if it is written with the Palisade SDK.",
    };
  }
  if (c.address) {
    if (c.address.startsWith("unix:"))
      return {
        kind: "unix-address",
        description: `unix socket ${c.address.slice(5)} (its file permissions decide who else can call it)`,
      };
    if (c.tls?.cert) return { kind: "mtls", description: `mTLS to ${c.address} (server verified, client certificate)` };
    if (c.tls) return { kind: "tls", description: `TLS to ${c.address} (server verified)` };
    if (isLoopbackAddress(c.address)) {
      return {
        kind: "loopback-tcp",
        description: `loopback TCP ${c.address}, no TLS, unauthenticated`,
        warning: `capability ${c.id} at ${c.address} is plain loopback TCP: any local process can call it directly. Prefer a unix socket address or tls.`,
      };
    }
    if (c.insecure) {
      return {
        kind: "insecure-tcp",
        description: `plain TCP to ${c.address} (insecure: true), no TLS`,
        warning: `capability ${c.id} at ${c.address} is reached without TLS (insecure: true): anyone on the network path can read and change its calls, credentials included.`,
      };
    }
    return { kind: "tls", description: `TLS to ${c.address} (server verified with the system's CAs)` };
  }
  return {
    kind: "docker",
    description: `Docker image ${c.image ?? image ?? "?"}, published on loopback TCP, unauthenticated`,
    warning: `capability ${c.id} runs in Docker and is published on loopback TCP: any local process can call it directly.`,
  };
}

/** grpc-js credentials and options for an `address` capability; throws CapabilityError("launch") on unreadable files. */
export function addressCredentials(c: Pick<CapabilityConfig, "id" | "address" | "tls" | "insecure">): {
  credentials: ChannelCredentials;
  options: ChannelOptions;
} {
  const address = c.address ?? "";
  const plain =
    address.startsWith("unix:") || (c.tls === undefined && (c.insecure === true || isLoopbackAddress(address)));
  if (plain) return { credentials: credentials.createInsecure(), options: {} };
  const tls = c.tls ?? {};
  const read = (field: "ca" | "cert" | "key"): Buffer | null => {
    const path = tls[field];
    if (path === undefined) return null;
    try {
      return readFileSync(path);
    } catch (err) {
      throw new CapabilityError(
        "launch",
        `capability ${c.id}: cannot read tls.${field} ${path}: ${(err as Error).message}`,
        { cause: err },
      );
    }
  };
  return {
    credentials: credentials.createSsl(read("ca"), read("key"), read("cert")),
    options: tls.serverName
      ? { "grpc.ssl_target_name_override": tls.serverName, "grpc.default_authority": tls.serverName }
      : {},
  };
}
