import { createHash } from "node:crypto";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ToolError, defineCapability, serveCapability } from "@palisade/capability-sdk";
import type { CapabilityServer } from "@palisade/capability-sdk";
import { RpcServer } from "@palisade/protocol";
import { Capability } from "@palisade/protocol/capability";
import { CapabilityHost, Deadline, DiskArtifactStore } from "@palisade/capabilities";
import type { CapabilityHost as Host, InvokeEvent } from "@palisade/capabilities";
import { objectSchema, owner, startHost, tempDir, tool, writeManifest } from "./helpers.js";

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });

const calls: Record<string, number> = {};
const count = (name: string): void => {
  calls[name] = (calls[name] ?? 0) + 1;
};

const demo = defineCapability({
  id: "demo",
  tools: [
    {
      name: "echo",
      description: "Echo",
      inputSchema: objectSchema({ text: { type: "string" } }, ["text"]),
      handler: async (args) => (count("echo"), { echo: args.text }),
    },
    {
      name: "slow",
      description: "Sleeps",
      inputSchema: objectSchema({ ms: { type: "integer" } }),
      handler: async (args, ctx) => (await sleep(Number(args.ms ?? 5000), ctx.signal), { slept: true }),
    },
    {
      name: "words",
      description: "Streams words",
      inputSchema: objectSchema(),
      handler: async () => ({ text: "one two three" }),
      stream: async function* () {
        for (const w of ["one ", "two ", "three"]) {
          yield w;
          await sleep(10);
        }
      },
    },
    {
      name: "stream_fail",
      description: "Streams, then fails",
      inputSchema: objectSchema(),
      handler: async () => ({}),
      stream: async function* () {
        yield "partial ";
        throw new ToolError("upstream closed");
      },
    },
    {
      name: "config",
      description: "Returns config_json",
      inputSchema: objectSchema(),
      handler: async (_a, ctx) => (
        count("config"),
        { config: ctx.config, session: ctx.sessionId, thread: ctx.threadId }
      ),
    },
    {
      name: "leak",
      description: "Fails with its credential in the message",
      inputSchema: objectSchema(),
      handler: async (_a, ctx) => {
        throw new ToolError(`bad key ${String(ctx.config.SYS_KEY)}`);
      },
    },
    {
      name: "make_file",
      description: "Produces an artifact of `size` bytes",
      inputSchema: objectSchema({ size: { type: "integer" }, form: { type: "string" } }),
      handler: async (args, ctx) => {
        const size = Number(args.size);
        const bytes = new Uint8Array(size).map((_, i) => (i * 7) % 256);
        const ref = ctx.artifacts.storeOutput(bytes, { filename: "out.bin", mimeType: "application/x-test" });
        if (args.form === "seed")
          return { ok: true, artifact_id: ref.artifact.capability_artifact_id, filename: "out.bin" };
        if (args.form === "list")
          return {
            ok: true,
            artifacts: [
              ref.artifact,
              ctx.artifacts.storeOutput(new Uint8Array([1, 2]), { filename: "b.txt", mimeType: "text/plain" }).artifact,
            ],
          };
        return { ok: true, ...ref };
      },
    },
    {
      name: "read_files",
      description: "Hashes attachments",
      inputSchema: objectSchema({ attachments: { type: "array" } }),
      handler: async (args, ctx) => {
        count("read_files");
        const list = (args.attachments ?? []) as {
          capability_artifact_id: string;
          filename: string;
          size_bytes: number;
        }[];
        return {
          files: list.map((a) => {
            const input = ctx.artifacts.getInput(a.capability_artifact_id);
            return {
              filename: a.filename,
              size: a.size_bytes,
              sha: input ? createHash("sha256").update(input.data).digest("hex") : "missing",
            };
          }),
        };
      },
    },
    {
      name: "finish",
      description: "Terminal tool",
      inputSchema: objectSchema(),
      handler: async () => ({ done: true }),
    },
  ],
});

let server: CapabilityServer;
let host: Host;
let dataDir: string;
let clock = Date.now();
let store: DiskArtifactStore;

beforeAll(async () => {
  server = await serveCapability(demo, { port: 0, insecureDev: true, log: () => undefined });
  const dir = tempDir();
  dataDir = tempDir("palisade-host-");
  store = new DiskArtifactStore({ dir: join(dataDir, "artifacts"), now: () => clock });
  const manifest = writeManifest(
    dir,
    {
      id: "demo",
      tools: [tool("echo", { input_schema: objectSchema({ text: { type: "string" } }, ["text"]) })]
        .concat(["slow", "words", "stream_fail", "config", "leak", "make_file", "read_files"].map((n) => tool(n)))
        .concat([tool("finish", { terminal_on_success: true })]),
      credentials: [
        { name: "SYS_KEY", scope: "system" },
        { name: "USER_KEY", scope: "user", required: false },
      ],
    },
    "Use demo tools for tests.\n",
  );
  ({ host } = await startHost(
    [
      {
        id: "demo",
        manifest,
        address: server.address,
        perToolTimeoutMs: { slow: 300 },
        credentials: { SYS_KEY: "sys-secret-1", NOT_DECLARED: "other-secret" },
        config: { region: "eu" },
      },
    ],
    { dataDir, artifacts: store },
  ));
});

afterAll(async () => {
  await host.stop();
  await server.close();
});

describe("host over a real SDK capability (address mode)", () => {
  it("is ready and lists its tools; prompt.md is exposed", () => {
    expect(host.status()[0]).toMatchObject({ id: "demo", state: "ready", launchMode: "address", toolCount: 9 });
    expect(host.catalog().map((t) => t.fullName)).toContain("demo__echo");
    expect(host.resolve("finish").terminalOnSuccess).toBe(true);
    expect(host.prompts()).toEqual([{ capabilityId: "demo", text: "Use demo tools for tests." }]);
  });

  it("invokes by full and bare name; terminal only on success", async () => {
    const r = await host.invoke("demo__echo", { text: "hi" }, owner);
    expect(r).toMatchObject({
      ok: true,
      content: '{"echo":"hi"}',
      result: { echo: "hi" },
      artifacts: [],
      terminal: false,
    });
    expect((await host.invoke("finish", {}, owner)).terminal).toBe(true);
  });

  it("errors are results for the model: unknown tool, bad arguments, tool error", async () => {
    expect((await host.invoke("demo__nope", {}, owner)).error?.code).toBe("unknown_tool");
    const before = calls.echo ?? 0;
    const bad = await host.invoke("demo__echo", { text: 5 }, owner);
    expect(bad).toMatchObject({ ok: false, error: { code: "invalid_arguments" } });
    expect(bad.content).toBe("invalid arguments: demo__echo: arguments.text: must be a string, got number 5");
    expect(calls.echo ?? 0).toBe(before);
  });

  it("arguments over the 16 MiB message limit are refused before sending", async () => {
    const r = await host.invoke("demo__echo", { text: "x".repeat(16 * 1024 * 1024) }, owner);
    expect(r.error?.code).toBe("invalid_arguments");
    expect(r.content).toContain("over the 16 MiB message limit: pass large data as an artifact");
  });

  it("enforces the deadline (per-tool config and per call)", async () => {
    const t0 = Date.now();
    const r = await host.invoke("demo__slow", { ms: 5000 }, owner);
    expect(r.error?.code).toBe("timeout");
    expect(r.content).toContain("did not finish within 300 ms");
    expect(Date.now() - t0).toBeLessThan(2000);
    const r2 = await host.invoke("demo__slow", { ms: 5000 }, { ...owner, timeoutMs: 100 });
    expect(r2.content).toContain("within 100 ms");
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 50);
    expect((await host.invoke("demo__slow", { ms: 5000 }, { ...owner, signal: ctl.signal })).error?.code).toBe(
      "cancelled",
    );
    // The caller's deadline (AbortSignal.timeout, or the Engine's tool limit) is reported as a timeout.
    const r3 = await host.invoke("demo__slow", { ms: 5000 }, { ...owner, signal: AbortSignal.timeout(50) });
    expect(r3.error?.code).toBe("timeout");
    expect(r3.content).toMatch(/^demo__slow was stopped: .*\(deadline exceeded\)$/);
  });

  it("one deadline per call: the caller's, brought forward to the tool's shorter limit", async () => {
    // The caller's limit (60 s) is longer than the tool's (300 ms): the tool's cuts the call, on
    // the caller's deadline, and the caller's own expiry never runs.
    let callerCut = false;
    const long = new Deadline(60_000, () => (callerCut = true));
    const r = await host.invoke("demo__slow", { ms: 5000 }, { ...owner, deadline: long });
    expect(r.error?.code).toBe("timeout");
    expect(r.content).toContain("did not finish within 300 ms");
    expect(long.remaining()).toBe(0);
    expect(callerCut).toBe(false);

    // The caller's limit (80 ms) is shorter: it cuts the call with its own words, and the tool's
    // 300 ms timer is never armed.
    const ctl = new AbortController();
    const short = new Deadline(80, () =>
      ctl.abort(new DOMException("the Engine's tool time limit of 80 ms passed", "TimeoutError")),
    );
    const timers = vi.spyOn(globalThis, "setTimeout");
    try {
      const r2 = await host.invoke("demo__slow", { ms: 5000 }, { ...owner, signal: ctl.signal, deadline: short });
      expect(r2.error?.code).toBe("timeout");
      expect(r2.content).toBe(
        "demo__slow was stopped: the Engine's tool time limit of 80 ms passed (deadline exceeded)",
      );
      expect(timers.mock.calls.filter((c) => c[1] === 300)).toEqual([]);
    } finally {
      timers.mockRestore();
    }
  });

  it("StreamInvoke: chunks as an async iterable, then the result", async () => {
    const events: InvokeEvent[] = [];
    for await (const ev of host.invokeStream("demo__words", {}, owner)) events.push(ev);
    expect(events.filter((e) => e.type === "chunk").map((e) => (e.type === "chunk" ? e.text : ""))).toEqual([
      "one ",
      "two ",
      "three",
    ]);
    const last = events.at(-1);
    expect(last?.type === "result" && last.result).toMatchObject({
      ok: true,
      content: "one two three",
      result: "one two three",
    });
  });

  it("StreamInvoke: an error chunk ends the call as a tool error", async () => {
    const chunks: string[] = [];
    const r = await host.invoke("demo__stream_fail", {}, { ...owner, onChunk: (t) => chunks.push(t) });
    expect(chunks).toEqual(["partial "]);
    expect(r).toMatchObject({ ok: false, error: { code: "tool_error" } });
    expect(r.content).toContain("upstream closed");
  });

  it("sends only declared credentials in config_json, plus config", async () => {
    const r = await host.invoke("demo__config", {}, { ...owner, threadId: "t9" });
    expect(r.result).toEqual({ config: { region: "eu", SYS_KEY: "sys-secret-1" }, session: "s1", thread: "t9" });
    expect(r.content).not.toContain("other-secret");
  });

  it("credential values never reach what the model sees", async () => {
    const r = await host.invoke("demo__leak", {}, owner);
    expect(r.ok).toBe(false);
    expect(r.content).toBe("demo__leak failed: bad key [redacted]");
    expect(JSON.stringify(r)).not.toContain("sys-secret-1");
  });

  it.each([
    ["empty", 0],
    ["one chunk", 256 * 1024],
    ["chunk + 1", 256 * 1024 + 1],
    ["exactly 5 MiB", 5 * 1024 * 1024],
  ])("output artifact (%s) is downloaded, stored and the result rewritten", async (_name, size) => {
    const r = await host.invoke("demo__make_file", { size }, owner);
    expect(r.ok, r.content).toBe(true);
    const art = r.artifacts[0];
    expect(art).toMatchObject({ filename: "out.bin", mimeType: "application/x-test", sizeBytes: size });
    expect(r.result).toEqual({
      ok: true,
      artifact: {
        artifact_id: art?.artifactId,
        filename: "out.bin",
        mime_type: "application/x-test",
        size_bytes: size,
      },
    });
    const stored = await store.read(art?.artifactId ?? "", owner);
    expect(stored?.data.byteLength).toBe(size);
    expect(stored?.data[size - 1]).toBe(size === 0 ? undefined : ((size - 1) * 7) % 256);
    expect(stored?.meta.source).toBe("capability:demo");
  });

  it("one byte over 5 MiB fails the call with a clear error", async () => {
    const r = await host.invoke("demo__make_file", { size: 5 * 1024 * 1024 + 1 }, owner);
    expect(r).toMatchObject({ ok: false, error: { code: "artifact_too_large" } });
    expect(r.content).toContain("over the 5 MiB limit");
  });

  it("seed form (top-level artifact_id) and artifacts[] are rewritten too", async () => {
    const seed = await host.invoke("demo__make_file", { size: 10, form: "seed" }, owner);
    expect(seed.result).toEqual({
      ok: true,
      artifact: {
        artifact_id: seed.artifacts[0]?.artifactId,
        filename: "out.bin",
        mime_type: "application/x-test",
        size_bytes: 10,
      },
    });
    const list = await host.invoke("demo__make_file", { size: 3, form: "list" }, owner);
    expect(list.artifacts.map((a) => a.filename)).toEqual(["out.bin", "b.txt"]);
    expect((list.result as { artifacts: { artifact_id: string }[] }).artifacts.map((a) => a.artifact_id)).toEqual(
      list.artifacts.map((a) => a.artifactId),
    );
  });

  it("input artifacts: uploaded (across chunk boundaries) and rewritten, by artifact_id or capability_artifact_id", async () => {
    const data = new Uint8Array(512 * 1024 + 3).map((_, i) => (i * 13) % 256);
    const meta = await store.put(data, { filename: "in.bin", mimeType: "application/octet-stream", owner });
    const sha = createHash("sha256").update(data).digest("hex");
    for (const item of [{ artifact_id: meta.artifactId }, { capability_artifact_id: meta.artifactId }]) {
      const r = await host.invoke("demo__read_files", { attachments: [item] }, owner);
      expect(r.result).toEqual({ files: [{ filename: "in.bin", size: data.byteLength, sha }] });
    }
  });

  it("another session's, unknown and expired artifacts are refused alike, without invoking", async () => {
    const meta = await store.put(new Uint8Array([1, 2, 3]), {
      filename: "x",
      mimeType: "x/y",
      owner: { userId: "alice", sessionId: "other" },
    });
    const before = calls.read_files ?? 0;
    const foreign = await host.invoke("demo__read_files", { attachments: [{ artifact_id: meta.artifactId }] }, owner);
    const unknown = await host.invoke(
      "demo__read_files",
      { attachments: [{ artifact_id: "art_ffffffffffffffffffffffff" }] },
      owner,
    );
    const mine = await store.put(new Uint8Array([1]), { filename: "y", mimeType: "x/y", owner });
    clock += 6 * 3600 * 1000;
    const expired = await host.invoke("demo__read_files", { attachments: [{ artifact_id: mine.artifactId }] }, owner);
    clock -= 6 * 3600 * 1000;
    for (const [r, id] of [
      [foreign, meta.artifactId],
      [unknown, "art_ffffffffffffffffffffffff"],
      [expired, mine.artifactId],
    ] as const) {
      expect(r.error?.code).toBe("artifact_not_found");
      expect(r.content).toBe(
        `artifact "${id}" was not found in this session (it may have expired, or belong to another session): use an artifact_id produced in this session, or produce the file again`,
      );
    }
    expect(calls.read_files ?? 0).toBe(before);
  });
});

describe("credentials: missing and user scope", () => {
  it("fails before invoking with the exact fix, and takes user values from the store", async () => {
    const srv = await serveCapability(demo, { port: 0, insecureDev: true, log: () => undefined });
    const dir = tempDir();
    const manifest = writeManifest(dir, {
      id: "demo",
      tools: [tool("config")],
      credentials: [
        { name: "USER_KEY", scope: "user", description: "Your key" },
        { name: "ENV_KEY", scope: "system" },
      ],
    });
    const env = { ENV_KEY: "from-engine-env", UNDECLARED_ENV: "nope" };
    const { host: h, dataDir: d } = await startHost([{ id: "demo", manifest, address: srv.address }], { env });
    try {
      const before = calls.config ?? 0;
      const r = await h.invoke("demo__config", {}, owner);
      expect(r.error?.code).toBe("missing_credential");
      expect(r.content).toContain(`palisade capability credentials set demo USER_KEY --user alice --data-dir ${d}`);
      expect(calls.config ?? 0).toBe(before);
      const { UserCredentialStore } = await import("@palisade/capabilities");
      await new UserCredentialStore(join(d, "credentials.json")).set("alice", "demo", "USER_KEY", "alice-key");
      expect((await h.invoke("demo__config", {}, owner)).result).toMatchObject({
        config: { USER_KEY: "alice-key", ENV_KEY: "from-engine-env" },
      });
      expect(((await h.invoke("demo__config", {}, owner)).result as { config: object }).config).toEqual({
        USER_KEY: "alice-key",
        ENV_KEY: "from-engine-env",
      });
      expect((await h.invoke("demo__config", {}, { ...owner, userId: "bob" })).content).toContain(
        'user "bob" has not set',
      );
    } finally {
      await h.stop();
      await srv.close();
    }
  });
});

describe("health gate and discovery (address mode)", () => {
  it("a never-ready server is not_ready and calls fail fast with its message", async () => {
    const cap = defineCapability({
      id: "late",
      ready: () => ({ ready: false, message: "loading model" }),
      tools: [{ name: "t", description: "t", inputSchema: objectSchema(), handler: async () => ({}) }],
    });
    const srv = await serveCapability(cap, { port: 0, insecureDev: true, log: () => undefined });
    const manifest = writeManifest(tempDir(), { id: "late", tools: [tool("t")] });
    const { host: h } = await startHost([{ id: "late", manifest, address: srv.address }], {
      startupTimeoutMs: 3000,
      healthCallTimeoutMs: 1500,
    });
    try {
      expect(h.status()[0]).toMatchObject({ state: "not_ready" });
      expect(h.status()[0]?.message).toContain("capability late is not ready: loading model");
      const t0 = Date.now();
      const r = await h.invoke("late__t", {}, owner);
      expect(r.error?.code).toBe("not_ready");
      expect(r.content).toContain("capability late is not ready: loading model");
      expect(Date.now() - t0).toBeLessThan(250);
    } finally {
      await h.stop();
      await srv.close();
    }
  });

  it("recovers when the server becomes ready and drops out when it stops being ready", async () => {
    let ready = false;
    const cap = defineCapability({
      id: "flappy",
      ready: () => ({ ready, message: ready ? "ok" : "busy" }),
      tools: [{ name: "t", description: "t", inputSchema: objectSchema(), handler: async () => ({ ok: 1 }) }],
    });
    const srv = await serveCapability(cap, { port: 0, insecureDev: true, log: () => undefined });
    const manifest = writeManifest(tempDir(), { id: "flappy", tools: [tool("t")] });
    const { host: h } = await startHost([{ id: "flappy", manifest, address: srv.address }], {
      startupTimeoutMs: 200,
      recheckIntervalMs: 50,
    });
    try {
      expect(h.status()[0]?.state).toBe("not_ready");
      ready = true;
      await waitUntil(() => h.status()[0]?.state === "ready");
      expect((await h.invoke("flappy__t", {}, owner)).ok).toBe(true);
      // Unchanged readiness: the same catalog, not rebuilt per call.
      const catalog = h.catalog();
      expect(catalog.map((t) => t.fullName)).toEqual(["flappy__t"]);
      expect(h.catalog()).toBe(catalog);
      ready = false;
      await waitUntil(() => h.status()[0]?.state === "not_ready");
      expect(h.catalog()).toEqual([]);
    } finally {
      await h.stop();
      await srv.close();
    }
  });

  const discoveryCases: [string, () => unknown, string | undefined][] = [
    [
      "valid tools",
      () => [
        { name: "repo_list", description: "List repos", input_schema: objectSchema(), recommended_policy: "allow" },
        { name: "repo_delete", description: "Delete", input_schema: objectSchema(), requires_confirmation: true },
      ],
      undefined,
    ],
    [
      "duplicates",
      () => [
        { name: "a", description: "", input_schema: {} },
        { name: "a", description: "", input_schema: {} },
      ],
      "[1].name: duplicate tool name",
    ],
    ["empty names", () => [{ name: "", description: "", input_schema: {} }], "[0].name: must be a non-empty string"],
    [
      "bad schemas",
      () => [{ name: "a", description: "", input_schema: { type: 42 } }],
      "[0].input_schema: is not a valid JSON Schema",
    ],
    ["not an array", () => ({ tools: [] }), "must return a JSON array of tools, got an object"],
    [
      "a failing discovery tool",
      () => {
        throw new ToolError("token expired");
      },
      "failed: token expired",
    ],
  ];
  it.each(discoveryCases)("dynamic discovery: %s", async (_name, result, error) => {
    let discoveries = 0;
    const cap = defineCapability({
      id: "dyn",
      tools: [
        {
          name: "discover",
          description: "d",
          inputSchema: objectSchema(),
          handler: async () => (discoveries++, result()),
        },
        { name: "repo_list", description: "l", inputSchema: objectSchema(), handler: async () => ({ repos: [] }) },
      ],
    });
    const srv = await serveCapability(cap, { port: 0, insecureDev: true, log: () => undefined });
    const manifest = writeManifest(tempDir(), {
      id: "dyn",
      tool_source: "dynamic",
      discovery_tool_name: "discover",
      tools: [],
    });
    const { host: h } = await startHost([{ id: "dyn", manifest, address: srv.address }]);
    try {
      if (error === undefined) {
        expect(h.catalog().map((t) => [t.fullName, t.policy])).toEqual([
          ["dyn__repo_list", "allow"],
          ["dyn__repo_delete", "ask"],
        ]);
        expect((await h.invoke("dyn__repo_list", {}, owner)).result).toEqual({ repos: [] });
        expect(discoveries).toBe(1);
      } else {
        expect(h.status()[0]).toMatchObject({ state: "failed" });
        expect(h.status()[0]?.message).toContain(error);
        expect(h.status()[0]?.message).toContain("discovery tool discover of capability dyn");
        expect(discoveries).toBe(2);
        expect(h.catalog()).toEqual([]);
      }
    } finally {
      await h.stop();
      await srv.close();
    }
  });
});

describe("capabilities that are not SDK-built", () => {
  it("non-JSON result_json is passed on as text; error → tool error", async () => {
    const rpc = new RpcServer();
    rpc.add(Capability, {
      invoke: async (req) =>
        req.toolName === "fail"
          ? { error: "disk full" }
          : { resultJson: new TextEncoder().encode("plain text answer") },
      streamInvoke: async function* () {},
      healthcheck: async () => ({ ready: true }),
      uploadInputArtifact: async () => ({ error: "no" }),
      downloadOutputArtifact: async function* () {},
    });
    const address = await rpc.listen("127.0.0.1:0");
    const manifest = writeManifest(tempDir(), { id: "raw", tools: [tool("text"), tool("fail")] });
    const { host: h } = await startHost([{ id: "raw", manifest, address }]);
    try {
      expect(await h.invoke("raw__text", {}, owner)).toMatchObject({
        ok: true,
        content: "plain text answer",
        result: "plain text answer",
      });
      expect(await h.invoke("raw__fail", {}, owner)).toMatchObject({
        ok: false,
        content: "raw__fail failed: disk full",
        error: { code: "tool_error" },
      });
    } finally {
      await h.stop();
      await rpc.close();
    }
  });
});

describe("launch modes without a server", () => {
  it("image: a clear error when Docker is unavailable; other capabilities unaffected", async () => {
    const dir = tempDir();
    const fakeDocker = join(dir, "docker");
    writeFileSync(
      fakeDocker,
      "#!/bin/sh\necho 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' >&2\nexit 1\n",
    );
    chmodSync(fakeDocker, 0o755);
    const selu = writeManifest(dir, {
      id: "web-search",
      image: "ghcr.io/selu-bot/cap-web-search:2.1.0",
      tools: [tool("search_web")],
    });
    const none = writeManifest(dir, { id: "nothing", tools: [tool("t")] });
    const mismatch = writeManifest(dir, { id: "other", tools: [tool("t")] });
    const { host: h } = await startHost(
      [
        { id: "web-search", manifest: selu },
        { id: "nothing", manifest: none },
        { id: "off", manifest: none, enabled: false },
        { id: "wrong", manifest: mismatch, address: "127.0.0.1:1" },
        { id: "broken", manifest: join(dir, "missing.yaml"), address: "127.0.0.1:1" },
      ],
      { docker: fakeDocker },
    );
    try {
      const [web, nothing, off, wrong, broken] = h.status();
      expect(web).toMatchObject({ state: "failed", launchMode: "image" });
      expect(web?.message).toContain(
        "Docker is unavailable (`docker info` failed: Cannot connect to the Docker daemon",
      );
      expect(web?.message).toContain("`command:`");
      expect(nothing).toMatchObject({ state: "not_configured", launchMode: "none" });
      expect(off).toMatchObject({ state: "not_configured", message: "disabled in config (enabled: false)" });
      expect(wrong?.message).toContain('config id "wrong" does not match manifest id "other"');
      expect(broken?.message).toContain("file not found");
    } finally {
      await h.stop();
    }
  });
});

// The deadline bounds a wait for what never comes; a loaded machine is slow, not wrong.
async function waitUntil(cond: () => boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await sleep(20);
  }
}

export { CapabilityHost };

describe("session workspace", () => {
  it("goes only to capabilities whose manifest declares filesystem: workspace", async () => {
    const srv = await serveCapability(demo, { port: 0, insecureDev: true, log: () => undefined });
    const dir = tempDir();
    const env = writeManifest(dir, {
      id: "envcap",
      class: "environment",
      filesystem: "workspace",
      tools: [tool("config")],
    });
    const plain = writeManifest(dir, { id: "plaincap", tools: [tool("config")] });
    const { host: h } = await startHost([
      { id: "envcap", manifest: env, address: srv.address, config: { workspace: "/engine/default" } },
      { id: "plaincap", manifest: plain, address: srv.address },
    ]);
    try {
      const inEnv = await h.invoke("envcap__config", {}, { ...owner, workspace: "/home/me/project" });
      expect((inEnv.result as { config: object }).config).toEqual({ workspace: "/home/me/project" });
      const inPlain = await h.invoke("plaincap__config", {}, { ...owner, workspace: "/home/me/project" });
      expect((inPlain.result as { config: object }).config).toEqual({});
      // Without a session workspace the configured default stays.
      const noSession = await h.invoke("envcap__config", {}, owner);
      expect((noSession.result as { config: object }).config).toEqual({ workspace: "/engine/default" });
    } finally {
      await h.stop();
      await srv.close();
    }
  });
});

describe("long-lived connections", () => {
  it("serves 1,500 streamed calls on one connection (no reset per call)", async () => {
    // A server that ends its stream a moment after the done chunk, as one in another process
    // does. Cancelling each finished stream would trip the rapid-reset guard after ~1000 calls.
    const srv = new RpcServer().add(Capability, {
      async invoke() {
        return { resultJson: new TextEncoder().encode("{}") };
      },
      async *streamInvoke() {
        yield { data: new TextEncoder().encode('{"tick":true}'), done: true };
        await new Promise((r) => setTimeout(r, 1));
      },
      async healthcheck() {
        return { ready: true };
      },
      async uploadInputArtifact() {
        return {};
      },
      async *downloadOutputArtifact() {},
    });
    const address = await srv.listen("127.0.0.1:0");
    const manifest = writeManifest(tempDir(), { id: "ticker", tools: [tool("tick")] });
    const { host: h } = await startHost([{ id: "ticker", manifest, address }]);
    try {
      for (let i = 0; i < 1500; i++) {
        const r = await h.invoke("ticker__tick", {}, { ...owner, onChunk: () => undefined });
        if (!r.ok) throw new Error(`call ${i} failed: ${r.content}`);
      }
    } finally {
      await h.stop();
      await srv.close(100);
    }
  }, 120_000);
});
