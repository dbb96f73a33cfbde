// Detector triggers may only skip detectors that cannot fire. On every corpus action, and on each
// of its strings under several tools, the dispatching runner must find exactly what calling every
// detector finds.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DETECTORS, runDetectors } from "../src/detectors/index.js";
import { buildSubject, type ResolvedContext } from "../src/normalize/subject.js";
import { HOME, WORKSPACE } from "./helpers.js";

interface Case {
  tool: string;
  args: unknown;
}

function load(name: string): Case[] {
  const text = readFileSync(fileURLToPath(new URL(`../corpus/${name}`, import.meta.url)), "utf8");
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Case);
}

function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v !== null && typeof v === "object") for (const x of Object.values(v)) strings(x, out);
  return out;
}

const ctx: ResolvedContext = {
  mode: "normal",
  subAgent: undefined,
  manifestPolicy: undefined,
  network: undefined,
  home: HOME,
  workspace: WORKSPACE,
  protectedPaths: ["/srv/palisade-data"],
};
const VARIANTS: [tool: string, key: string][] = [
  ["shell__execute_command", "command"],
  ["files__write_file", "path"],
  ["files__delete_file", "path"],
  ["spawn_agent", "task"],
  ["http__http_request", "url"],
  ["mail__send_email", "body"],
  ["mail__send_email", "to"],
  ["acme__tool", "input"],
  ["acme__tool", "command"],
];

describe("detector triggers", () => {
  it("skip only detectors that find nothing", () => {
    const corpus = [...load("attacks.jsonl"), ...load("legit.jsonl"), ...load("holdout.jsonl")];
    const cases: Case[] = [...corpus];
    for (const s of new Set(corpus.flatMap((c) => strings(c.args)))) {
      for (const [tool, key] of VARIANTS) cases.push({ tool, args: { [key]: s } });
      cases.push({ tool: "files__write_file", args: { path: `${WORKSPACE}/run.sh`, content: s } });
    }
    const differ: string[] = [];
    for (const c of cases) {
      const s = buildSubject(c.tool, c.args, ctx);
      const every = DETECTORS.filter((d) => d.detect(s) !== undefined).map((d) => d.id);
      const dispatched = runDetectors(s, { disable: [], severity: {} })
        .map((f) => f.id)
        .filter((id) => id !== "exfil.credential-egress");
      if (every.join() !== dispatched.join())
        differ.push(
          `${c.tool} ${JSON.stringify(c.args).slice(0, 80)}: all ${every.join(",")} / dispatched ${dispatched.join(",")}`,
        );
    }
    expect(cases.length).toBeGreaterThan(5000);
    expect(differ.slice(0, 10)).toEqual([]);
  });
});
