import { Code, RpcError } from "@palisade/protocol";
import { limitFromMessage } from "../format/message-limit.js";

/** One line for a failed RPC: what happened, in words a user can act on. */
export function describeRpcError(err: unknown): string {
  if (err instanceof RpcError) {
    switch (err.code) {
      case Code.UNAVAILABLE:
        return "not reachable (it may have stopped)";
      case Code.DEADLINE_EXCEEDED:
        return "no answer in time";
      case Code.UNAUTHENTICATED:
      case Code.PERMISSION_DENIED:
        return `the Engine refused the connection (${err.message}); is engine.token readable?`;
      case Code.UNIMPLEMENTED:
        return `this Engine does not support that yet (${err.message})`;
      default:
        return `${err.codeName}: ${err.message}`;
    }
  }
  return err instanceof Error ? err.message : String(err);
}

export function isUnavailable(err: unknown): boolean {
  return err instanceof RpcError && (err.code === Code.UNAVAILABLE || err.code === Code.DEADLINE_EXCEEDED);
}

/** The Engine refused a request for its size; its limit in bytes when it named one (0 when not). */
export function tooLargeLimit(err: unknown): number | undefined {
  if (!(err instanceof RpcError) || err.code !== Code.RESOURCE_EXHAUSTED) return undefined;
  return limitFromMessage(err.message) ?? 0;
}
