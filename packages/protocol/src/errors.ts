import { Metadata, status } from "@grpc/grpc-js";
import type { ServiceError, StatusObject } from "@grpc/grpc-js";

/** gRPC status codes, re-exported so callers never import grpc-js for them. */
export const Code = status;
export type Code = status;

/**
 * The one error class for gRPC failures, on both sides of the wire.
 * Throw it from a handler to choose the status code; clients receive it for every failed call.
 */
export class RpcError extends Error {
  readonly code: Code;
  readonly metadata: Metadata;

  constructor(code: Code, message: string, options?: { cause?: unknown; metadata?: Metadata }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.metadata = options?.metadata ?? new Metadata();
  }

  /** Name of the status code, e.g. "DEADLINE_EXCEEDED". */
  get codeName(): string {
    return Code[this.code] ?? `CODE_${String(this.code)}`;
  }

  static from(err: unknown): RpcError {
    if (err instanceof RpcError) return err;
    if (isServiceError(err)) {
      return new RpcError(err.code, err.details || err.message, { cause: err, metadata: err.metadata });
    }
    if (isAbortError(err)) return new RpcError(Code.CANCELLED, "call cancelled", { cause: err });
    const message = err instanceof Error ? err.message : String(err);
    return new RpcError(Code.UNKNOWN, message, { cause: err });
  }

  toStatus(): Partial<StatusObject> {
    return { code: this.code, details: this.message, metadata: this.metadata };
  }
}

function isServiceError(err: unknown): err is ServiceError {
  return err instanceof Error && typeof (err as Partial<ServiceError>).code === "number" && "details" in err;
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError");
}
