// PostgreSQL errors as the store's typed errors, with the same codes the SQLite store uses.
import { StoreError } from "../errors.js";
import { sqlState } from "./db.js";

/** Rethrows a driver error as a StoreError when it is one the caller can act on. */
export function mapPgError(cause: unknown, what: { conflict?: string; missing?: string; invalid?: string }): never {
  const state = sqlState(cause);
  if (state === "23505" && what.conflict) throw new StoreError("CONFLICT", what.conflict, { cause });
  if (state === "23503" && what.missing) throw new StoreError("NOT_FOUND", what.missing, { cause });
  if (state === "23514" && what.invalid) throw new StoreError("INVALID_ARGUMENT", what.invalid, { cause });
  throw cause;
}
