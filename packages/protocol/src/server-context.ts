// What a server handler knows about its call and can add to the response: the signal that
// stops it (with the reason: client cancel, deadline, shutdown), the response headers and the
// trailers sent with the status.
import { Metadata } from "@grpc/grpc-js";
import type { Deadline } from "@grpc/grpc-js";
import { Code, RpcError } from "./errors.js";
import { MetadataError, appendMetadata } from "./metadata.js";
import type { MetadataInit } from "./metadata.js";
import type { CallContext } from "./types.js";

/** The part of a grpc-js server call the context needs. */
export interface ServerCallLike {
  metadata: Metadata;
  getPeer(): string;
  getDeadline(): Deadline;
  sendMetadata(md: Metadata): void;
  on(event: "cancelled", cb: () => void): unknown;
  removeListener(event: "cancelled", cb: () => void): unknown;
  cancelled: boolean;
}

/**
 * grpc-js ends a call whose deadline passed as it ends one the client cancelled: both reach the
 * handler as "cancelled", and HTTP/2 resets carry no reason. A call that ends this close to its
 * deadline ended by it: the client's own deadline timer usually resets the stream just before the
 * server's fires, and the server's deadline starts when it read the headers, later than the
 * client's by however long that took on a busy machine. A tenth of the call's time, 20 to 250 ms.
 */
function deadlineSlackMs(budgetMs: number): number {
  return Math.min(250, Math.max(20, budgetMs / 10));
}

function deadlineMs(deadline: Deadline): number {
  return deadline instanceof Date ? deadline.getTime() : deadline;
}

export interface ServerCallState {
  ctx: CallContext;
  /** Sends the headers set so far, once, unless already sent: before the first message or the status. */
  flushHeader: () => void;
  /** The trailers the handler set (empty Metadata when none). */
  trailer: Metadata;
  /** Runs once the handler finished (see contextFor). */
  done: () => void;
}

/**
 * The handler's context. `done` runs once the handler has finished: grpc-js reports every call as
 * "cancelled" after its status is sent (its end-of-call cleanup), so the listener must be gone by
 * then, or each finished call would abort its signal with a spurious CANCELLED error.
 */
export function contextFor(
  call: ServerCallLike,
  path: string,
  shutdown: AbortSignal,
  principal: unknown,
): ServerCallState {
  const controller = new AbortController();
  const started = Date.now();
  const onCancel = (): void => {
    const deadline = deadlineMs(call.getDeadline());
    const pastDeadline = Number.isFinite(deadline) && Date.now() >= deadline - deadlineSlackMs(deadline - started);
    controller.abort(
      pastDeadline
        ? new RpcError(Code.DEADLINE_EXCEEDED, `${path}: the call's deadline passed`)
        : new RpcError(Code.CANCELLED, "call cancelled by the client"),
    );
  };
  const onShutdown = (): void => controller.abort(new RpcError(Code.UNAVAILABLE, "server shutting down"));
  call.on("cancelled", onCancel);
  if (call.cancelled) onCancel();
  shutdown.addEventListener("abort", onShutdown, { once: true });

  let header: Metadata | undefined;
  let headerSent = false;
  const trailer = new Metadata();
  const flushHeader = (): void => {
    if (headerSent) return;
    headerSent = true;
    if (header) call.sendMetadata(header);
  };
  const ctx: CallContext = {
    signal: controller.signal,
    metadata: call.metadata,
    peer: call.getPeer(),
    path,
    principal,
    setHeader: (init: MetadataInit) => {
      if (headerSent)
        throw new MetadataError(
          `${path}: the response headers were already sent (with the first message, or by sendHeader); set them before`,
        );
      appendMetadata((header ??= new Metadata()), init, `${path} response header`);
    },
    sendHeader: () => {
      if (headerSent) throw new MetadataError(`${path}: the response headers were already sent`);
      flushHeader();
    },
    setTrailer: (init: MetadataInit) => {
      appendMetadata(trailer, init, `${path} response trailer`);
    },
  };
  return {
    ctx,
    flushHeader,
    trailer,
    done: () => {
      call.removeListener("cancelled", onCancel);
      shutdown.removeEventListener("abort", onShutdown);
    },
  };
}
