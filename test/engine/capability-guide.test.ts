// docs/capabilities.md "Writing a capability in TypeScript", followed literally: its files and
// commands are taken from the page (never retyped here), the SDK linked with `file:` as it says,
// built with npm, checked with `palisade capability check` and run in a real Engine from the
// page's config entry (relative `manifest:` and `command:` paths, `node` as the program) with a
// PATH whose first `node` is older than Palisade's. The streaming tool streams.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { createClient } from "@palisade/protocol";
import type { Client } from "@palisade/protocol";
import { ClientService, PipelineEventType as T } from "@palisade/protocol/pipeline";
import type { CallToolResult, PipelineEvent } from "@palisade/protocol/pipeline";
import { ApprovalDecision } from "@palisade/protocol/types";
import { startEngine } from "@palisade/engine";
import { loadConfig } from "@palisade/config";
import type { RunningEngine } from "@palisade/engine";
import { startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { built, root } from "./helpers.js";

const page = readFileSync(join(root, "docs", "capabilities.md"), "utf8");
const section = (() => {
  const start = page.indexOf("## Writing a capability in TypeScript");
  const end = page.indexOf("\n## ", start + 1);
  return page.slice(start, end === -1 ? undefined : end);
})();

/** The first fenced block of `lang` after `marker` in the section. */
function blockAfter(marker: string, lang: string): string {
  const at = section.indexOf(marker);
  if (at === -1) throw new Error(`docs/capabilities.md: '${marker}' not found in the guide`);
  const m = new RegExp("```" + lang + "\\n([\\s\\S]*?)```").exec(section.slice(at));
  if (!m?.[1]) throw new Error(`docs/capabilities.md: no \`\`\`${lang} block after '${marker}'`);
  return m[1];
}

/** An inline `code` span after `marker` (it may wrap lines). */
function inlineAfter(marker: string): string {
  const m = new RegExp(marker.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "[^`]*`([^`]+)`").exec(section);
  if (!m?.[1]) throw new Error(`docs/capabilities.md: no inline code after '${marker}'`);
  return m[1];
}

// The first `node` on this PATH is the system's (20 here), older than the SDK's floor, as in a
// user's shell; Palisade's own Node must run the capability anyway.
const SYSTEM_FIRST = `/usr/local/bin:/usr/bin:/bin:${join(root, "bin")}`;

const skip = built();
const dir = mkdtempSync(join(tmpdir(), "palisade-guide-"));
const caps = join(dir, "caps", "notes");
let model: ScriptedServer;
let engine: RunningEngine | undefined;

beforeAll(() => {
  if (skip) return;
  mkdirSync(join(caps, "src"), { recursive: true });
  const pkg = blockAfter("`caps/notes/package.json`:", "json").replace(/\/path\/to\/palisade/g, root);
  writeFileSync(join(caps, "package.json"), pkg);
  writeFileSync(join(caps, "tsconfig.json"), inlineAfter("`caps/notes/tsconfig.json`:"));
  writeFileSync(join(caps, "src", "main.ts"), blockAfter("`caps/notes/src/main.ts`:", "ts"));
  writeFileSync(join(caps, "manifest.yaml"), blockAfter("`caps/notes/manifest.yaml`", "yaml"));
  const build = inlineAfter("Build it in `caps/notes`");
  expect(build).toBe("npm install && npm run build");
  // npm is Palisade's (on PATH first in this run); its cache is in the run's temporary home
  const r = spawnSync("sh", ["-c", `${build.replace("npm install", "npm install --no-audit --no-fund")}`], {
    cwd: caps,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`${build} failed in ${caps}:\n${r.stdout}\n${r.stderr}`);
}, 240_000);

afterAll(async () => {
  await engine?.stop(2000);
  await model?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(
  client: Client<typeof ClientService>,
  toolName: string,
  args: unknown,
  sessionId = "",
): Promise<{ result: CallToolResult | undefined; events: PipelineEvent[] }> {
  let result: CallToolResult | undefined;
  const events: PipelineEvent[] = [];
  let session = sessionId;
  for await (const r of client.callTool({ sessionId, toolName, argumentsJson: JSON.stringify(args) })) {
    if (r.payload.case === "result") result = r.payload.value;
    if (r.payload.case !== "event") continue;
    const ev = r.payload.value;
    events.push(ev);
    session = ev.sessionId || session;
    if (ev.eventType === T.APPROVAL_NEEDED && ev.approvalNeeded)
      await client.resolveApproval({
        approvalId: ev.approvalNeeded.approvalId,
        decision: ApprovalDecision.ALLOW_ONCE,
        sessionId: session,
      });
  }
  return { result, events };
}

/** The programs (their /proc/PID/exe) of the processes running `script`, the sandbox's bwrap aside. */
function nodesRunning(script: string): string[] {
  const out: string[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      const exe = readlinkSync(`/proc/${pid}/exe`);
      if (cmdline.includes(script) && !exe.endsWith("/bwrap")) out.push(exe);
    } catch {
      /* gone meanwhile, or not ours to read */
    }
  }
  return out;
}

describe.skipIf(skip)("the capability SDK guide, followed literally", () => {
  it("the page's check command passes, from the directory that holds caps/", () => {
    const check = blockAfter("check it from the directory", "sh").trim();
    const out = execFileSync("sh", ["-c", check], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, PATH: SYSTEM_FIRST },
    });
    expect(out).toMatch(/^ok .*caps\/notes\/manifest\.yaml: notes, 4 tool\(s\); health ready/);
  }, 120_000);

  // As written, in its sandbox; and with `sandbox: false` added, as where bubblewrap is missing
  // (sandbox.required: false), where nothing but the config decides which `node` runs.
  it.each([
    ["as written", {}],
    ["unsandboxed", { sandbox: false }],
  ])(
    "its config entry (%s) runs it in the Engine on Palisade's Node: a plain call, then the streaming tool streams",
    async (_, extra) => {
      const entry = parse(blockAfter("register it in `config.yaml` there", "yaml")) as {
        capabilities: Record<string, unknown>[];
      };
      expect(entry.capabilities).toHaveLength(1);
      await engine?.stop(2000);
      await model?.close();
      model = await startScriptedServer({});
      const run = mkdtempSync(join(dir, "run-"));
      const workspace = join(run, "ws");
      mkdirSync(workspace);
      const configFile = join(dir, "config.yaml");
      writeFileSync(
        configFile,
        stringify({
          model: { base_url: model.baseURL, api_key: "sk-test-not-secret", name: "scripted-model" },
          shield: { policy: "default" },
          capabilities: [
            ...entry.capabilities.map((c) => ({ ...c, ...extra })),
            ...["http", "documents", "mail", "shell", "files"].map((id) => ({ id, enabled: false })),
          ],
          workspace,
          history: { auto_title: false },
        }),
        { mode: 0o600 }, // it holds model.api_key
      );
      // The Engine as a user's shell would run it: system Node first on PATH (while it runs: the
      // capability starts on its first call), cwd elsewhere.
      const saved = process.env.PATH;
      process.env.PATH = SYSTEM_FIRST;
      engine = await startEngine({
        dataDir: join(run, "data"),
        config: await loadConfig(configFile, {}),
        env: {},
        log: () => undefined,
      });
      const client = createClient(ClientService, engine.address, { bearerToken: engine.bearerToken });
      try {
        const add = await call(client, "notes__add_note", { title: "milk", text: "buy 2 litres" });
        expect(add.result?.isError, add.result?.errorMessage).toBe(false);
        expect(JSON.parse(add.result?.content ?? "{}")).toMatchObject({ ok: true, count: 1 });
        // relative `command:` path, resolved against config.yaml's directory, on Palisade's Node
        const script = join(dir, "caps", "notes", "dist", "main.js");
        const nodes = nodesRunning(script);
        expect(nodes.length, `no process runs ${script}`).toBeGreaterThan(0);
        for (const exe of nodes) {
          const version = execFileSync(exe, ["--version"], { encoding: "utf8" }).trim();
          const [major = 0, minor = 0] = version.slice(1).split(".").map(Number);
          expect(major > 22 || (major === 22 && minor >= 12), `${exe} is ${version}`).toBe(true);
        }

        const list = await call(client, "notes__list_notes", {}, add.result?.sessionId ?? "");
        expect(list.result?.isError, list.result?.errorMessage).toBe(false);
        const chunks = list.events.filter((e) => e.eventType === T.ACTION_PROGRESS);
        expect(chunks.length, "list_notes streamed no chunk").toBeGreaterThan(0);
        expect(list.result?.content).toContain("milk: buy 2 litres");
      } finally {
        process.env.PATH = saved;
        client.close();
      }
      expect(dirname(configFile)).toBe(dir);
    },
    120_000,
  );
});
