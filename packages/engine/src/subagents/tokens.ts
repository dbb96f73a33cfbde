// Per-spawn tokens: looked up by their hash, then compared in constant time, so neither the
// lookup nor the comparison reveals how much of a guess was right.
import { createHash, randomBytes } from "node:crypto";
import { safeEqual } from "../agent/link.js";

export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

const digest = (token: string): string => createHash("sha256").update(token).digest("hex");

export class TokenTable<T> {
  private readonly byDigest = new Map<string, { token: string; value: T }>();

  add(token: string, value: T): void {
    this.byDigest.set(digest(token), { token, value });
  }

  find(token: string): T | undefined {
    const hit = this.byDigest.get(digest(token));
    return hit && safeEqual(token, hit.token) ? hit.value : undefined;
  }

  remove(token: string): void {
    this.byDigest.delete(digest(token));
  }
}
