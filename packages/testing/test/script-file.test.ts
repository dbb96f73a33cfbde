import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { makeTempDir, scriptFromJson, startScriptedServer } from "@palisade/testing";

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

describe("JSON scripts", () => {
  it("turns /regex/ strings into regular expressions and echoes by default", async () => {
    const options = scriptFromJson({
      rules: [{ match: { role: "user", content: "/^weather/i" }, reply: { content: "Sunny." } }],
    });
    const server = await startScriptedServer(options);
    try {
      const client = new OpenAI({ baseURL: server.baseURL, apiKey: "x", maxRetries: 0 });
      const ask = async (content: string) =>
        (await client.chat.completions.create({ model: "m", messages: [{ role: "user", content }] })).choices[0]
          ?.message.content;
      expect(await ask("Weather today?")).toBe("Sunny.");
      expect(await ask("hello")).toBe("(scripted model) You said: hello");
    } finally {
      await server.close();
    }
  });

  it("names the field of an invalid rule", () => {
    expect(() => scriptFromJson({ rules: [{ match: { colour: "red" }, reply: {} }] }, "demo.json")).toThrow(
      /demo\.json: rules\[0\]\.match\.colour: unknown/,
    );
    expect(() => scriptFromJson({ rules: [{ match: { content: "/(/" }, reply: {} }] }, "demo.json")).toThrow(
      /rules\[0\]\.match\.content: invalid regular expression/,
    );
  });

  it("runs as a standalone server from the command line", async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`make build\` first`);
    const dir = await makeTempDir();
    const script = join(dir.path, "script.json");
    writeFileSync(script, JSON.stringify({ fallback: { content: "from the file" } }));
    const child = spawn(process.execPath, [CLI, "--port", "0", "--script", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      const line = await new Promise<string>((resolve) =>
        child.stdout.once("data", (d: Buffer) => resolve(d.toString())),
      );
      const baseURL = /OPENAI_BASE_URL=(\S+)/.exec(line)?.[1];
      expect(baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const client = new OpenAI({ baseURL, apiKey: "x", maxRetries: 0 });
      const res = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
      expect(res.choices[0]?.message.content).toBe("from the file");
    } finally {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      await dir.remove();
    }
  });
});
