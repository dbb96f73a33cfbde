import type { ChannelOptions } from "@grpc/grpc-js";

/**
 * Addresses are `host:port` (TCP) or `unix:/absolute/path` (unix socket).
 * grpc-js also accepts `unix:///abs`; both forms are normalized to `unix:/abs`.
 */
export function normalizeAddress(address: string): string {
  if (address.startsWith("unix://")) return `unix:${address.slice("unix://".length)}`;
  return address;
}

export function isUnixAddress(address: string): boolean {
  return address.startsWith("unix:");
}

export function unixSocketPath(address: string): string | undefined {
  return isUnixAddress(address) ? normalizeAddress(address).slice("unix:".length) : undefined;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * How often a client pings a connection that carries a call. gRPC servers (C-core, Go) refuse
 * pings more frequent than 5 minutes while no data flows (`grpc.http2.min_ping_interval_without_data_ms`)
 * and close the connection after a few, which ends a call that stays silent that long (a slow
 * model, a quiet tool). Pinging no more often keeps such calls.
 */
export const KEEPALIVE_TIME_MS = 300_000;

/**
 * Channel options every Palisade client uses. grpc-js buffers each message of a stream for
 * retries by default, which makes long streams quadratic (TOOLCHAIN.md); a small retry buffer
 * keeps them linear.
 */
export function defaultChannelOptions(maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES): ChannelOptions {
  return {
    "grpc.per_rpc_retry_buffer_size": 16384,
    "grpc.max_send_message_length": maxMessageBytes,
    "grpc.max_receive_message_length": maxMessageBytes,
    "grpc.keepalive_time_ms": KEEPALIVE_TIME_MS,
    // No channelz service is served: skip its per-call bookkeeping.
    "grpc.enable_channelz": 0,
  };
}
