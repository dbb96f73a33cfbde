/** Local error codes of the store; the Engine maps them to gRPC status codes. */
export type StoreErrorCode =
  | "NOT_FOUND"
  | "AUDIT_KEY"
  | "INVALID_ARGUMENT"
  | "BAD_CURSOR"
  | "CONFLICT"
  | "SCHEMA_TOO_NEW"
  | "MIGRATION_FAILED"
  | "CLOSED"
  | "UNAVAILABLE";

export class StoreError extends Error {
  readonly code: StoreErrorCode;

  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

export function notFound(what: string, id: string): StoreError {
  return new StoreError(
    "NOT_FOUND",
    `${what} ${JSON.stringify(id)} does not exist (deleted, or never created in this store)`,
  );
}
