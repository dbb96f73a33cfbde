// Off the record, nothing reaches the disk: a tool's artifact is kept in the Engine's memory,
// served during the session and gone with it; a tool that would write files is refused.
// Real Engine, Agent, capability process (snapshot-cap) and CLI, scripted model.
import { execFile } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, RpcError } from "@palisade/protocol";
import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import { SessionMode } from "@palisade/protocol/types";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { built, collect, final, fixtures, kind, root, startE2E } from "./helpers.js";
import type { E2E } from "./helpers.js";

const skip = built();
const cap = join(fixtures, "snapshot-cap");
const CLI = join(root, "apps/cli/dist/main.js");
let h: E2E;

beforeAll(async () => {
  if (skip) return;
  h = await startE2E({
    capabilities: ({ workspace }) => [
      "  - id: snap",
      `    manifest: ${join(cap, "manifest.yaml")}`,
      `    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(cap, "main.mjs"))}]`,
      "    protocol: palisade",
      `    config: { workspace: ${JSON.stringify(workspace)} }`,
    ],
  });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

/** Every regular file under `dir` (the data directory: SQLite db, WAL, artifacts, logs). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) out.push(...filesUnder(p));
    else if (st.isFile()) out.push(p);
  }
  return out;
}

/** Files under the data directory holding `marker` (as UTF-8 or UTF-16LE, the two ways SQLite may store text). */
function filesContaining(marker: string): string[] {
  const needles = [Buffer.from(marker, "utf8"), Buffer.from(marker, "utf16le")];
  return filesUnder(h.dataDir).filter((f) => {
    const bytes = readFileSync(f);
    return needles.some((n) => bytes.includes(n));
  });
}

async function download(sessionId: string, artifactId: string): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const chunk of h.client.getArtifact({ sessionId, artifactId }))
    if (chunk.data.length > 0) parts.push(chunk.data);
  return Buffer.concat(parts);
}

/** `palisade artifacts list --session ID --json` against the running Engine (asynchronously: the Engine runs in this process). */
function cliArtifacts(sessionId: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const args = [
    CLI,
    "--data-dir",
    h.dataDir,
    "--config",
    h.configPath,
    "artifacts",
    "list",
    "--session",
    sessionId,
    "--json",
  ];
  return new Promise((resolve) => {
    execFile(process.execPath, args, { encoding: "utf8", timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ status: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

const load = { toolCalls: [{ name: "load_tools", arguments: { groups: ["snap"] } }] };

describe.skipIf(skip)("off the record: artifacts in memory only", () => {
  it("an artifact of an OTR session is served during the session, never written under the data dir, and gone once the session ends", async () => {
    const marker = `otr-marker-${Math.random().toString(36).slice(2)}-bytes`;
    h.model.enqueue(
      load,
      { toolCalls: [{ name: "snap__render", arguments: { text: marker } }] },
      { content: "Rendered." },
    );
    const evs = await collect(h.client.sendMessage({ content: "render the note", mode: SessionMode.OTR }));
    expect(kind(final(evs))).toBe("RESPONSE_COMPLETE");
    const sessionId = evs[0]!.sessionId;
    const completed = evs.find(
      (e: PipelineEvent) => e.eventType === T.ACTION_COMPLETED && e.actionCompleted?.toolName === "snap__render",
    )?.actionCompleted;
    expect(completed?.success).toBe(true);
    const ref = completed!.artifacts[0]!;
    expect(ref.filename).toBe("render.txt");

    // During the session: the Engine serves it, and `artifacts list` of the session shows it.
    expect((await download(sessionId, ref.artifactId)).toString("utf8")).toBe(marker);
    const during = await cliArtifacts(sessionId);
    expect(during.status, during.stderr).toBe(0);
    expect(
      (JSON.parse(during.stdout) as { artifacts: { artifactId: string }[] }).artifacts.map((a) => a.artifactId),
    ).toEqual([ref.artifactId]);

    // Nothing of it on disk: no file under the data dir (artifacts, SQLite db and WAL, logs) holds its bytes or its id.
    expect(filesContaining(marker)).toEqual([]);
    expect(filesContaining(ref.artifactId)).toEqual([]);
    const artifactsDir = join(h.dataDir, "artifacts");
    expect(existsSync(artifactsDir) ? readdirSync(artifactsDir) : []).toEqual([]);

    // The session ends: the artifact is gone from the Engine and from `artifacts list`.
    expect((await h.client.deleteSession({ sessionId })).deleted).toBe(true);
    const gone = await download(sessionId, ref.artifactId).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(gone).toBeInstanceOf(RpcError);
    expect((gone as RpcError).code).toBe(Code.NOT_FOUND);
    const after = await cliArtifacts(sessionId);
    expect(after.stdout).not.toContain(ref.artifactId);
    expect(after.status).not.toBe(0);
    expect(after.stderr).toContain(`session ${sessionId} does not exist`);
    expect(filesContaining(marker)).toEqual([]);
  }, 60_000);

  it("the same tool in a normal session stores its artifact on disk (the control)", async () => {
    const marker = `normal-marker-${Math.random().toString(36).slice(2)}`;
    h.model.enqueue(
      load,
      { toolCalls: [{ name: "snap__render", arguments: { text: marker } }] },
      { content: "Rendered." },
    );
    const evs = await collect(h.client.sendMessage({ content: "render the note" }));
    const ref = evs.find((e) => e.eventType === T.ACTION_COMPLETED && e.actionCompleted?.toolName === "snap__render")
      ?.actionCompleted?.artifacts[0];
    expect(ref).toBeDefined();
    expect(filesContaining(marker)).toContain(join(h.dataDir, "artifacts", `${ref!.artifactId}.bin`));
  }, 60_000);

  it("a tool that would write a file (its schema says so; allowed by its manifest) is refused off the record and writes nothing", async () => {
    h.model.enqueue(
      load,
      { toolCalls: [{ name: "snap__save", arguments: { path: "otr-save.txt", text: "kept?" } }] },
      { content: "Not saved." },
    );
    const evs = await collect(h.client.sendMessage({ content: "save the note", mode: SessionMode.OTR }));
    const blocked = evs.find((e) => e.eventType === T.OTR_BLOCKED)?.otrBlocked;
    expect(blocked).toMatchObject({ toolName: "snap__save" });
    expect(blocked?.reason).toMatch(/writes files/);
    expect(evs.some((e) => e.eventType === T.ACTION_STARTED)).toBe(false);
    expect(existsSync(join(h.workspace, "otr-save.txt"))).toBe(false);

    // In a normal session the same call is not refused by the OTR gate (it runs and writes).
    h.model.enqueue(
      load,
      { toolCalls: [{ name: "snap__save", arguments: { path: "normal-save.txt", text: "kept" } }] },
      { content: "Saved." },
    );
    const normal = await collect(h.client.sendMessage({ content: "save the note" }));
    expect(normal.some((e) => e.eventType === T.OTR_BLOCKED)).toBe(false);
    expect(normal.find((e) => e.eventType === T.ACTION_COMPLETED)?.actionCompleted?.success).toBe(true);
    expect(readFileSync(join(h.workspace, "normal-save.txt"), "utf8")).toBe("kept");
  }, 60_000);
});
