import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineCapability, serveCapability } from "@palisade/capability-sdk";
import type { CapabilityServer } from "@palisade/capability-sdk";
import { runCapabilityCli } from "@palisade/capabilities";
import { objectSchema, tempDir, tool, writeManifest } from "./helpers.js";

function io(stdin?: string) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      stdout: { write: (s: string) => out.push(s) },
      stderr: { write: (s: string) => err.push(s) },
      ...(stdin === undefined ? {} : { stdin: (async function* () { yield stdin; })() }),
      env: {},
    },
    out: () => out.join(""),
    err: () => err.join(""),
  };
}

let server: CapabilityServer;
let manifest: string;
const dir = tempDir();

beforeAll(async () => {
  const cap = defineCapability({
    id: "pdf",
    tools: [{ name: "render", description: "r", inputSchema: objectSchema(), handler: async (_a, ctx) => ({ ok: true, ...ctx.artifacts.storeOutput(new TextEncoder().encode("%PDF-1.7"), { filename: "report.pdf", mimeType: "application/pdf" }) }) }],
  });
  server = await serveCapability(cap, { port: 0, insecureDev: true, log: () => undefined });
  manifest = writeManifest(dir, { id: "pdf", tools: [tool("render", { terminal_on_success: true })] });
});
afterAll(async () => {
  await server.close();
});

describe("palisade capability (runCapabilityCli)", () => {
  it("list: shows each capability's channel and warns about unauthenticated ones", async () => {
    const config = join(dir, "config.yaml");
    writeFileSync(
      config,
      [
        "capabilities:",
        `  - { id: pdf, manifest: ${JSON.stringify(manifest)}, command: [node, main.js], protocol: palisade }`,
        `  - { id: pdf2, manifest: ${JSON.stringify(writeManifest(dir, { id: "pdf2", tools: [tool("render")] }))}, command: [python3, server.py] }`,
      ].join("\n"),
    );
    const l = io();
    expect(await runCapabilityCli(["list", "--config", config], l.io)).toBe(0);
    expect(l.out()).toContain("pdf (command)\n  channel: unix socket in the Engine's 0700 runtime directory, per-launch secret on every call\n  pdf__render");
    expect(l.out()).toContain("pdf2 (command)\n  channel: loopback TCP (Selu PORT convention), unauthenticated\n  WARNING: capability pdf2 is a Selu-convention server on loopback TCP without authentication");
    const j = io();
    expect(await runCapabilityCli(["list", "--config", config, "--json"], j.io)).toBe(0);
    const listed = JSON.parse(j.out()) as { id: string; unauthenticated: boolean }[];
    expect(listed.map((c) => [c.id, c.unauthenticated])).toEqual([["pdf", false], ["pdf2", true]]);
  });

  it("check: ok manifests exit 0, invalid ones exit 1 with every problem", async () => {
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "id: Bad\ntools: []\n");
    const ok = io();
    expect(await runCapabilityCli(["check", manifest, "--address", server.address], ok.io)).toBe(0);
    expect(ok.out()).toContain("ok ");
    expect(ok.out()).toContain("health ready");
    const ko = io();
    expect(await runCapabilityCli(["check", bad], ko.io)).toBe(1);
    expect(ko.out()).toContain(`${bad}: id: must be lowercase`);
    expect(ko.out()).toContain(`${bad}: tools: must list at least one tool`);
  });

  it("call --out saves output artifacts", async () => {
    const out = tempDir();
    const c = io();
    expect(await runCapabilityCli(["call", manifest, "render", "{}", "--address", server.address, "--out", out, "--data-dir", tempDir()], c.io)).toBe(0);
    expect(c.out()).toContain('"artifact":{"artifact_id":"art_');
    expect(c.out()).toContain(`saved ${join(out, "report.pdf")}`);
    expect(readFileSync(join(out, "report.pdf"), "utf8")).toBe("%PDF-1.7");
  });

  it("call goes through the judge first: block refuses, escalate needs --yes, allow runs", async () => {
    const seen: { tool: string; manifestPolicy: string }[] = [];
    const judgeWith = (decision: "allow" | "block" | "escalate") => async (c: { tool: string; manifestPolicy: "allow" | "ask" | "block" }) => {
      seen.push({ tool: c.tool, manifestPolicy: c.manifestPolicy });
      return { decision, tier: 0, reason: `test ${decision}` };
    };
    const argv = ["call", manifest, "render", "{}", "--address", server.address, "--data-dir", tempDir()];
    const blocked = io();
    expect(await runCapabilityCli(argv, { ...blocked.io, judge: judgeWith("block") })).toBe(2);
    expect(blocked.out()).not.toContain("artifact");
    const asked = io();
    expect(await runCapabilityCli(argv, { ...asked.io, judge: judgeWith("escalate") })).toBe(3);
    expect(asked.out()).not.toContain("artifact");
    const approved = io();
    expect(await runCapabilityCli([...argv, "--yes"], { ...approved.io, judge: judgeWith("escalate") })).toBe(0);
    expect(approved.out()).toContain("artifact");
    expect(seen[0]?.tool).toMatch(/__render$/);
  });

  it("credentials set (from stdin), list, delete; usage errors exit 2", async () => {
    const dataDir = tempDir();
    expect(await runCapabilityCli(["credentials", "set", "gh", "TOKEN", "--user", "bob", "--data-dir", dataDir], io("ghp_123\n").io)).toBe(0);
    const l = io();
    await runCapabilityCli(["credentials", "list", "--user", "bob", "--data-dir", dataDir], l.io);
    expect(l.out()).toBe("gh TOKEN\n");
    expect(l.out()).not.toContain("ghp_123");
    expect(JSON.parse(readFileSync(join(dataDir, "credentials.json"), "utf8")).users.bob.gh.TOKEN).toBe("ghp_123");
    expect(await runCapabilityCli(["credentials", "delete", "gh", "TOKEN", "--user", "bob", "--data-dir", dataDir], io().io)).toBe(0);
    const u = io();
    expect(await runCapabilityCli(["call", manifest], u.io)).toBe(2);
    expect(u.err()).toContain("call needs MANIFEST and TOOL");
  });
});
