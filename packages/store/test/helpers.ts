import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { Store } from "@palisade/store";
import type { OpenOptions, Verdict } from "@palisade/store";

const cleanups: Array<() => void> = [];

afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

/** A fresh directory removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "palisade-store-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A store on a real file in a temp dir, closed after the test. */
export function tempStore(options: OpenOptions = {}): { store: Store; path: string; dir: string } {
  const dir = tempDir();
  const path = join(dir, "palisade.db");
  const store = Store.open(path, options);
  cleanups.unshift(() => store.close());
  return { store, path, dir };
}

export const allow: Verdict = {
  decision: "allow",
  tier: 0,
  confidence: 1,
  reason: "policy allows",
  ruleIds: ["allow-read"],
  evaluationUs: 12,
};
export const block: Verdict = {
  decision: "block",
  tier: 1,
  confidence: 0.97,
  reason: "destructive command",
  ruleIds: ["det-rm-rf"],
  evaluationUs: 80,
};
export const escalate: Verdict = {
  decision: "escalate",
  tier: 1,
  confidence: 0.6,
  reason: "network write",
  ruleIds: ["net-post"],
  evaluationUs: 40,
};
