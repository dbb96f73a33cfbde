// Built-in tools get their semantics from their manifests, like any capability: every block is
// valid and means what the stand-alone fallback table (used when a caller passes none) says.
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { checkSemantics, KNOWN_TOOLS } from "@palisade/shield";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const root = fileURLToPath(new URL("../../../apps/capabilities/", import.meta.url));

describe("semantics in the built-in manifests", () => {
  const tools = readdirSync(root).flatMap((cap) => {
    const m = parse(readFileSync(`${root}${cap}/manifest.yaml`, "utf8")) as {
      id: string;
      tools: { name: string; semantics?: unknown }[];
    };
    return m.tools.map((t) => ({ name: `${m.id}__${t.name}`, semantics: t.semantics }));
  });

  it("every built-in tool declares valid semantics", () => {
    expect(tools.length).toBeGreaterThanOrEqual(12);
    for (const t of tools) {
      const r = checkSemantics(t.semantics, `${t.name}.semantics`);
      expect(r.problems, t.name).toEqual([]);
    }
  });

  it("the declared semantics agree with the fallback table on kind, paths, recipients, hosts and commands", () => {
    for (const t of tools) {
      const spec = checkSemantics(t.semantics).spec;
      const known = KNOWN_TOOLS[t.name];
      expect(known, `${t.name} missing from the fallback table`).toBeDefined();
      expect(spec?.kind, t.name).toBe(known?.kind);
      for (const [arg, op] of Object.entries(spec?.paths ?? {})) expect(known?.paths[arg], `${t.name}.${arg}`).toBe(op);
      expect(spec?.recipients ?? [], t.name).toEqual(known?.recipients ?? []);
      expect(spec?.urls ?? [], t.name).toEqual(known?.urls ?? []);
      expect(spec?.commands ?? [], t.name).toEqual(known?.commands ?? []);
    }
  });
});
