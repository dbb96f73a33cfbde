import { createHash, timingSafeEqual } from "node:crypto";
import { Code, RpcError } from "@palisade/protocol";
import type { Authorizer } from "@palisade/protocol";

/** Metadata key the Engine sends the launch secret in, as `Bearer <secret>`. */
export const SECRET_METADATA_KEY = "authorization";

/** Shortest secret accepted: a guessable secret is no secret. */
export const MIN_SECRET_LENGTH = 16;

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/**
 * Refuses every call whose metadata lacks `authorization: Bearer <secret>` with UNAUTHENTICATED.
 * RpcServer runs it on a call's headers: a refused call's request is never read from the
 * socket, let alone decoded, so an unauthenticated peer cannot make the capability parse anything.
 */
export function secretAuthorizer(secret: string): Authorizer {
  const expected = digest(secret);
  return (metadata) => {
    const values = metadata.get(SECRET_METADATA_KEY);
    const value = values.length === 1 && typeof values[0] === "string" ? values[0] : "";
    const token = value.startsWith("Bearer ") ? value.slice("Bearer ".length) : "";
    // Hashing first makes both sides the same length, so the comparison time says nothing about the secret.
    if (token !== "" && timingSafeEqual(digest(token), expected)) return;
    throw new RpcError(
      Code.UNAUTHENTICATED,
      "missing or wrong capability secret: only the Palisade Engine that launched this capability may call it",
    );
  };
}
