// A tool's policy (allow, ask, block) has one home, here: the capability host and the Shield
// both import it (neither may import the other), so the two never disagree on its values.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isManifestPolicy, MANIFEST_POLICIES } from "@palisade/protocol/policy";

const packages = join(import.meta.dirname, "../..");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith(".generated.ts"))
    .map((e) => join(e.parentPath, e.name))
    .filter((f) => !f.includes(`${join("src", "gen")}`));
}

describe("the tool policy", () => {
  it("is allow, ask or block, and nothing else", () => {
    expect(MANIFEST_POLICIES).toEqual(["allow", "ask", "block"]);
    expect(MANIFEST_POLICIES.filter(isManifestPolicy)).toEqual(["allow", "ask", "block"]);
    expect(["escalate", "ALLOW", "", undefined, 1].filter(isManifestPolicy)).toEqual([]);
  });

  it("is written once: no other package's source spells its values out as a type or a list", () => {
    const spelled = /"allow" \| "ask" \| "block"|\["allow", "ask", "block"\]/;
    const found = readdirSync(packages)
      .filter((p) => p !== "protocol")
      .flatMap((p) => {
        try {
          return sources(join(packages, p, "src"));
        } catch {
          return [];
        }
      })
      .filter((f) => spelled.test(readFileSync(f, "utf8")))
      .map((f) => f.slice(packages.length + 1));
    expect(found).toEqual([]);
  });
});
