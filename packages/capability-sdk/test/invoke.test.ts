import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolError, defineCapability } from "@palisade/capability-sdk";
import type { ToolContext } from "@palisade/capability-sdk";
import { dec, enc, json, parse, start } from "./helpers.js";
import type { Harness } from "./helpers.js";

const seen: { ctx?: ToolContext } = {};

const cap = defineCapability({
  id: "files",
  tools: [
    {
      name: "read_file",
      description: "Reads a file.",
      inputSchema: {
        type: "object",
        properties: {
          path: { type: "string" },
          mode: { enum: ["text", "bytes"] },
          limit: { type: "integer", minimum: 1 },
        },
        required: ["path"],
        additionalProperties: false,
      },
      handler: async (args: { path: string }, ctx) => {
        seen.ctx = ctx;
        if (args.path === "missing.txt") throw new ToolError("file not found: missing.txt");
        if (args.path === "boom") throw new Error("disk on fire");
        if (args.path === "bigint") return { n: 1n };
        return { path: args.path, content: "hello" };
      },
    },
    {
      name: "noop",
      description: "Returns nothing.",
      inputSchema: { type: "object" },
      handler: async () => undefined,
    },
  ],
});

let h: Harness;
beforeAll(async () => {
  h = await start(cap);
});
afterAll(async () => {
  await h.stop();
});

async function invoke(toolName: string, args: Uint8Array, extra: { configJson?: Uint8Array } = {}) {
  return h.client.invoke({
    toolName,
    argsJson: args,
    sessionId: "s1",
    threadId: "t1",
    capabilityId: "files-1",
    ...extra,
  });
}

describe("Invoke", () => {
  it("runs the handler with parsed args and context, result as JSON bytes", async () => {
    const res = await invoke("read_file", json({ path: "a.txt" }), { configJson: json({ token: "x" }) });
    expect(res.error).toBe("");
    expect(parse(res.resultJson)).toEqual({ path: "a.txt", content: "hello" });
    expect(seen.ctx).toMatchObject({
      toolName: "read_file",
      sessionId: "s1",
      threadId: "t1",
      capabilityId: "files-1",
      config: { token: "x" },
    });
    expect(seen.ctx?.signal).toBeInstanceOf(AbortSignal);
  });

  it("defaults empty args and config to {} and capabilityId to the definition id", async () => {
    const res = await h.client.invoke({ toolName: "noop" });
    expect(res.error).toBe("");
    expect(dec.decode(res.resultJson)).toBe("null");
  });

  it("names the field whose type is wrong", async () => {
    const res = await invoke("read_file", json({ path: 42 }));
    expect(res.error).toBe("invalid arguments: read_file: arguments.path: must be a string, got number 42");
  });

  it("names missing, unexpected and out-of-enum fields, all at once", async () => {
    const res = await invoke("read_file", json({ mode: "fast", extra: 1, limit: 0 }));
    expect(res.error).toMatch(/^invalid arguments: read_file: /);
    expect(res.error).toContain("read_file: arguments.path: is required");
    expect(res.error).toContain("read_file: arguments.extra: unknown key; allowed here: ");
    expect(res.error).toContain('read_file: arguments.mode: must be text or bytes, got "fast"');
    expect(res.error).toContain("read_file: arguments.limit: must be an integer >= 1, got number 0");
  });

  it("rejects invalid JSON arguments with a clear error", async () => {
    const res = await invoke("read_file", enc.encode("{path: 1"));
    expect(res.error).toMatch(/^invalid JSON arguments for read_file: .+; send a JSON object/);
  });

  it("rejects arguments that are not an object", async () => {
    const res = await invoke("read_file", json(["a"]));
    expect(res.error).toContain("invalid JSON arguments for read_file: expected a JSON object, got an array");
  });

  it("rejects invalid config_json", async () => {
    const res = await invoke("read_file", json({ path: "a" }), { configJson: enc.encode("nope") });
    expect(res.error).toMatch(/^invalid config_json for capability files: /);
  });

  it("lists the known tools for an unknown tool", async () => {
    const res = await invoke("write_file", json({}));
    expect(res.error).toBe('unknown tool "write_file" for capability files; known tools: read_file, noop');
  });

  it("returns a ToolError message verbatim", async () => {
    const res = await invoke("read_file", json({ path: "missing.txt" }));
    expect(res.error).toBe("file not found: missing.txt");
    expect(res.resultJson.byteLength).toBe(0);
  });

  it("turns an unexpected exception into an error and keeps serving", async () => {
    const res = await invoke("read_file", json({ path: "boom" }));
    expect(res.error).toBe("tool read_file failed: disk on fire");
    expect(h.logs.some((l) => l.includes("tool read_file threw") && l.includes("disk on fire"))).toBe(true);
    const again = await invoke("read_file", json({ path: "a.txt" }));
    expect(again.error).toBe("");
  });

  it("reports a result that is not JSON-serializable", async () => {
    const res = await invoke("read_file", json({ path: "bigint" }));
    expect(res.error).toMatch(/^tool read_file returned a result that is not JSON-serializable/);
  });
});

describe("Healthcheck", () => {
  it("is ready without a hook", async () => {
    const res = await h.client.healthcheck({});
    expect(res.ready).toBe(true);
  });
});
