// `palisade artifacts list|save` and the session export's artifact list against the real Engine
// (started in the background by the command, as for a user) with the scripted model making a PDF.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { runCli } from "../src/cli/run-cli.js";
import { captureIo } from "./helpers.js";

const main = join(import.meta.dirname, "..", "dist", "main.js");
const built =
  existsSync(main) && existsSync(join(import.meta.dirname, "..", "..", "capabilities", "documents", "dist", "main.js"));

describe.skipIf(!built)("palisade artifacts (real Engine, scripted model)", () => {
  let model: ScriptedServer;
  let root: string;
  let g: string[];
  const cli = async (...argv: string[]) => {
    const io = captureIo({ PALISADE_CLI_MAIN: main, HOME: root, PATH: process.env.PATH }, join(root, "w"));
    const code = await runCli([...g, ...argv], io);
    return { code, out: io.out(), err: io.err() };
  };

  beforeAll(async () => {
    model = await startScriptedServer({
      turns: [
        { toolCalls: [{ name: "load_tools", arguments: { groups: ["documents"] } }] },
        {
          toolCalls: [
            {
              name: "documents__create_pdf",
              arguments: { title: "Quarterly", sections: [{ heading: "Intro", content: "Some text." }] },
            },
          ],
        },
        { content: "Your PDF is ready." },
      ],
      tokenDelayMs: 0,
    });
    root = mkdtempSync(join(tmpdir(), "part-"));
    mkdirSync(join(root, "w"));
    writeFileSync(
      join(root, "config.yaml"),
      `model:\n  base_url: ${model.baseURL}\n  name: scripted-model\nhistory:\n  auto_title: false\n`,
    );
    g = ["--data-dir", join(root, "d"), "--config", join(root, "config.yaml")];
  }, 60_000);

  afterAll(async () => {
    await cli("engine", "stop");
    await model?.close();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it("a PDF the model announces can be listed, saved and is in the session export", async () => {
    const run = await cli("run", "make me a pdf");
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain("Your PDF is ready.");
    const sessionId = /\(session (ses_[\w-]+)/.exec(run.err)?.[1] ?? "";

    const list = await cli("artifacts", "list", "--json");
    const found = (
      JSON.parse(list.out) as {
        artifacts: { artifactId: string; filename: string; sessionId: string; toolName: string }[];
      }
    ).artifacts;
    expect(found).toEqual([
      expect.objectContaining({ filename: "Quarterly.pdf", sessionId, toolName: "documents__create_pdf" }),
    ]);
    const id = found[0]?.artifactId ?? "";
    expect((await cli("artifacts", "list", "--session", sessionId.slice(0, 10))).out).toContain(id);

    const out = join(root, "downloads");
    const saved = await cli("artifacts", "save", id.slice(0, 10), "--out", out);
    expect(saved.code, saved.err).toBe(0);
    expect(saved.out).toContain(`saved ${join(out, "Quarterly.pdf")}`);
    expect(readFileSync(join(out, "Quarterly.pdf")).subarray(0, 5).toString()).toBe("%PDF-");
    const again = await cli("artifacts", "save", id);
    expect(again.out).toContain(`saved ${join(root, "w", "Quarterly.pdf")}`);

    const exported = await cli("sessions", "export", sessionId, "--format", "json");
    const data = JSON.parse(exported.out) as { artifacts: { id: string; filename: string }[] };
    expect(data.artifacts).toEqual([expect.objectContaining({ id, filename: "Quarterly.pdf" })]);

    const missing = await cli("artifacts", "save", "art_nope");
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("no artifact art_nope");
  }, 180_000);
});
