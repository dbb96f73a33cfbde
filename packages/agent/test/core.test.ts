import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { ContextMessageSchema } from "@palisade/protocol/pipeline";
import type { ContextMessage } from "@palisade/protocol/pipeline";
import {
  AgentConfigError,
  AgentFailure,
  DEFAULT_RETRY,
  estimateTokens,
  fitToolResults,
  ToolSet,
  nextRetryDelay,
  parseCompaction,
  parseLoadToolsArgs,
  planCompaction,
  readAgentConfig,
  retryAfterMs,
  runTurn,
  toChatMessages,
} from "@palisade/agent";
import type { CallModel, ModelResult, TurnPorts, TurnRequest } from "@palisade/agent";

type ContextMessageInit = MessageInitShape<typeof ContextMessageSchema>;
const msg = (role: string, content: string, extra: ContextMessageInit = {}): ContextMessage => {
  const init: ContextMessageInit = { ...extra, role, content };
  return create(ContextMessageSchema, init);
};

describe("readAgentConfig", () => {
  it("reads its variables with defaults, the token from where main.ts read it (stdin), never the environment; the model is reached through the gateway with the spawn token", () => {
    const c = readAgentConfig(
      {
        PALISADE_ENGINE_ADDRESS: "unix:/s",
        PALISADE_AGENT_TOKEN: "from-env",
        PALISADE_MODEL: "m",
        PALISADE_MODEL_GATEWAY: "/run/g.sock",
        HOME: "/root",
      },
      { token: "t" },
    );
    expect(c).toEqual({
      engineAddress: "unix:/s",
      token: "t",
      agentId: "agent",
      modelEndpoint: { gateway: "/run/g.sock", credential: "t" },
      model: "m",
      contextWindow: 128_000,
    });
  });
  it("ignores OPENAI_API_KEY and OPENAI_BASE_URL: the Agent has no key and no endpoint of its own", () => {
    const c = readAgentConfig(
      {
        PALISADE_ENGINE_ADDRESS: "unix:/s",
        PALISADE_MODEL: "m",
        PALISADE_MODEL_GATEWAY: "/g",
        OPENAI_API_KEY: "sk-x",
        OPENAI_BASE_URL: "http://h/v1",
      },
      { token: "t" },
    );
    expect(JSON.stringify(c)).not.toContain("sk-x");
    expect(JSON.stringify(c)).not.toContain("http://h");
  });
  it("reads the Engine's session idle window for the kept conversations, a whole number of ms", () => {
    const env = { PALISADE_ENGINE_ADDRESS: "unix:/s", PALISADE_MODEL: "m", PALISADE_MODEL_GATEWAY: "/g" };
    expect(readAgentConfig({ ...env, PALISADE_HISTORY_IDLE_MS: "900000" }, { token: "t" }).historyIdleMs).toBe(900_000);
    expect(readAgentConfig(env, { token: "t" }).historyIdleMs).toBeUndefined();
    for (const bad of ["0", "-5", "1.5", "soon"]) {
      expect(() => readAgentConfig({ ...env, PALISADE_HISTORY_IDLE_MS: bad }, { token: "t" })).toThrow(
        `PALISADE_HISTORY_IDLE_MS=${JSON.stringify(bad)} must be a whole number of milliseconds >= 1`,
      );
    }
  });
  it("wants an absolute gateway socket path", () => {
    expect(() =>
      readAgentConfig(
        { PALISADE_ENGINE_ADDRESS: "unix:/s", PALISADE_MODEL: "m", PALISADE_MODEL_GATEWAY: "g.sock" },
        { token: "t" },
      ),
    ).toThrow(/PALISADE_MODEL_GATEWAY="g.sock" must be an absolute path/);
  });
  it("lists every problem", () => {
    const err = (() => {
      try {
        readAgentConfig({ PALISADE_CONTEXT_WINDOW: "12.5", PALISADE_AGENT_TOKEN: "from-env" }, { token: "" });
      } catch (e) {
        return e;
      }
    })() as AgentConfigError;
    expect(err).toBeInstanceOf(AgentConfigError);
    expect(err.problems).toHaveLength(5);
    expect(err.problems).toContain("no spawn token: the Engine writes it as the first line of the Agent's stdin");
  });
});

describe("retry policy", () => {
  const policy = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 400, maxTotalDelayMs: 1000 };
  it.each([
    { attempts: 1, waitedMs: 0, retryAfter: undefined, want: 100 },
    { attempts: 2, waitedMs: 100, retryAfter: undefined, want: 200 },
    { attempts: 3, waitedMs: 300, retryAfter: undefined, want: 400 },
    { attempts: 4, waitedMs: 0, retryAfter: undefined, want: undefined }, // attempts exhausted
    { attempts: 1, waitedMs: 0, retryAfter: 750, want: 750 }, // server's retry-after wins
    { attempts: 1, waitedMs: 500, retryAfter: 750, want: undefined }, // would exceed the total cap
  ])(
    "attempt $attempts, waited $waitedMs, retry-after $retryAfter → $want",
    ({ attempts, waitedMs, retryAfter, want }) => {
      expect(nextRetryDelay(policy, { attempts, waitedMs }, retryAfter, () => 0.5)).toBe(want);
    },
  );
  it("parses retry-after headers", () => {
    const h = (o: Record<string, string>) => ({ get: (n: string) => o[n] ?? null });
    expect(retryAfterMs(h({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
    expect(retryAfterMs(h({ "retry-after": "2" }))).toBe(2000);
    expect(retryAfterMs(h({ "retry-after": new Date(10_000).toUTCString() }), 4000)).toBe(6000);
    expect(retryAfterMs(h({}))).toBeUndefined();
  });
});

describe("context", () => {
  it("repairs tool results without calls and calls without results", () => {
    const out = toChatMessages([
      msg("tool", "orphan", { toolCallId: "zz" }),
      msg("user", "q"),
      msg("assistant", "", {
        toolCalls: [
          { id: "a", name: "t", argumentsJson: "{}" },
          { id: "b", name: "t", argumentsJson: "" },
        ] as never,
      }),
      msg("tool", "ra", { toolCallId: "a" }),
      msg("user", "next"),
    ]);
    expect(out).toEqual([
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "a", type: "function", function: { name: "t", arguments: "{}" } },
          { id: "b", type: "function", function: { name: "t", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "a", content: "ra" },
      { role: "tool", tool_call_id: "b", content: "No result was recorded for this call." },
      { role: "user", content: "next" },
    ]);
  });
  it("splits for compaction at a user message, keeping recent turns within budget", () => {
    const h = Array.from({ length: 6 }, (_, i) => [
      msg("user", `u${String(i)} ${"x".repeat(200)}`),
      msg("assistant", "y".repeat(200)),
    ]).flat();
    const plan = planCompaction(h, 300);
    expect(plan?.recent[0]?.role).toBe("user");
    expect(plan && plan.older.length + plan.recent.length).toBe(12);
    expect(plan?.older.length).toBeGreaterThan(0);
    expect(planCompaction(h.slice(0, 2), 10)).toBeUndefined(); // only one exchange: nothing older
  });
  it.each([
    ["FACTS:\n- a\n- b\nSUMMARY:\nsum", { facts: "- a\n- b", summary: "sum" }],
    ["FACTS:\nnone\nSUMMARY:\nsum", { facts: "", summary: "sum" }],
    ["just prose", { facts: "", summary: "just prose" }],
  ])("parseCompaction(%j)", (text, want) => expect(parseCompaction(text)).toEqual(want));
});

describe("estimateTokens", () => {
  it("stays within a quarter of the serialized size and counts text, tool calls and tools", () => {
    const schema = {
      type: "object",
      properties: { path: { type: "string", description: "A path in the workspace" } },
      required: ["path"],
    };
    const tools = [
      {
        type: "function" as const,
        function: { name: "files__read_file", description: "Reads a file.", parameters: schema },
      },
    ];
    const messages = [
      { role: "system" as const, content: "You are a helpful assistant. ".repeat(20) },
      { role: "user" as const, content: "read x.txt please" },
      {
        role: "assistant" as const,
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function" as const,
            function: { name: "files__read_file", arguments: '{"path":"x.txt"}' },
          },
        ],
      },
      { role: "tool" as const, tool_call_id: "call_1", content: "hello world\n".repeat(50) },
    ];
    const serialized = Math.ceil((JSON.stringify(messages).length + JSON.stringify(tools).length) / 4);
    const estimate = estimateTokens(messages, tools);
    expect(estimate).toBeGreaterThan(serialized * 0.75);
    expect(estimate).toBeLessThan(serialized * 1.25);
    // The arguments of a tool call count: 395 more characters are about 99 more tokens.
    const withArgs = (path: string) => [
      {
        role: "assistant" as const,
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function" as const,
            function: { name: "files__read_file", arguments: JSON.stringify({ path }) },
          },
        ],
      },
    ];
    const grown = estimateTokens(withArgs("y".repeat(400))) - estimateTokens(withArgs("x.txt"));
    expect(grown).toBeGreaterThanOrEqual(98);
    expect(grown).toBeLessThanOrEqual(100);
    expect(estimateTokens(messages, tools)).toBeGreaterThan(estimateTokens(messages));
  });
});

describe("fitToolResults", () => {
  it("shortens the oldest long tool results until the messages fit", () => {
    const big = "z".repeat(8000);
    const messages = [
      { role: "user" as const, content: "q" },
      { role: "tool" as const, tool_call_id: "a", content: big },
      { role: "tool" as const, tool_call_id: "b", content: big },
      { role: "tool" as const, tool_call_id: "c", content: "short" },
    ];
    const budget = estimateTokens(messages) - 1500;
    expect(fitToolResults(messages, [], budget)).toBe(1);
    expect(messages[1]?.content).toMatch(/^z{1000}\n\[\.\.\. 7000 characters cut to fit the context window\]$/);
    expect(messages[2]?.content).toBe(big);
    expect(estimateTokens(messages)).toBeLessThanOrEqual(budget);
    expect(fitToolResults(messages, [], 10)).toBe(1); // the next one; short results stay
    expect(messages[3]?.content).toBe("short");
  });
});

describe("tools", () => {
  it("parses each parameter schema once: turns with the same tools share it", () => {
    const spec = {
      name: "files__read_file",
      description: "Reads",
      parametersJson: '{"type":"object","properties":{"path":{"type":"string"}}}',
    };
    const a = new ToolSet([spec as never]).toParams()[0];
    const b = new ToolSet([{ ...spec } as never]).toParams()[0];
    expect(a?.type === "function" && b?.type === "function" && a.function.parameters === b.function.parameters).toBe(
      true,
    );
    expect(a?.type === "function" ? a.function.parameters : undefined).toEqual({
      type: "object",
      properties: { path: { type: "string" } },
    });
    const broken = new ToolSet([{ ...spec, name: "x", parametersJson: "{not json" } as never]).toParams()[0];
    expect(broken?.type === "function" ? broken.function.parameters : undefined).toEqual({
      type: "object",
      properties: {},
    });
  });

  it("adds a load_tools meta-tool when groups exist and lists them in its description", () => {
    const set = new ToolSet([], [{ name: "files", description: "Files", toolCount: 4 } as never]);
    const params = set.toParams();
    expect(params.map((p) => p.type === "function" && p.function.name)).toEqual(["load_tools"]);
    expect(params[0]?.type === "function" && params[0].function.description).toContain("- files (4 tools): Files");
  });
  it.each([
    ['{"groups":["a","b"]}', { groups: ["a", "b"] }],
    ['{"groups":"a"}', { groups: ["a"] }],
    ['{"groups":[]}', "error"],
    ["not json", "error"],
  ])("parseLoadToolsArgs(%s)", (json, want) => {
    const got = parseLoadToolsArgs(json);
    if (want === "error") expect("error" in got).toBe(true);
    else expect(got).toEqual(want);
  });
});

/** Table-driven turns against scripted model results and fake ports. */
describe("runTurn (pure turn logic)", () => {
  const result = (over: Partial<ModelResult>): ModelResult => ({
    content: "",
    reasoning: "",
    toolCalls: [],
    finishReason: "stop",
    usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 1 },
    ...over,
  });
  const request = (over: Partial<TurnRequest> = {}): TurnRequest => ({
    sessionId: "s",
    messageId: "m",
    content: "hi",
    history: [],
    systemPrompt: "",
    model: "m",
    tools: [],
    groups: [],
    maxToolRounds: 0,
    contextWindow: 128_000,
    ...over,
  });
  function ports(
    script: ModelResult[],
    tool = (name: string) => ({ content: `${name} ok`, isError: false, terminal: false }),
  ) {
    const calls: string[] = [];
    const proposed: string[] = [];
    const tokens: string[] = [];
    let n = 0;
    const callModel: CallModel = async (req) => {
      calls.push(JSON.stringify(req.messages.at(-1)));
      const next = script.shift();
      if (!next) throw new AgentFailure("LLM_CALL_FAILED", "script exhausted");
      if (next.content) req.onToken?.(next.content);
      return next;
    };
    const p: TurnPorts = {
      callModel,
      emitToken: (t) => tokens.push(t),
      proposeTool: async (c) => {
        proposed.push(`${c.callId}:${c.name}`);
        return tool(c.name);
      },
      loadTools: async () => ({ tools: [], unknownGroups: [], loadedGroups: [] }),
      flushMemory: () => undefined,
      reserveCallId: (id) => (id === "dup" ? `dup-${String(++n)}` : id),
    };
    return { p, calls, proposed, tokens };
  }

  it("sums usage over model calls and counts rounds", async () => {
    const { p, proposed } = ports([
      result({ toolCalls: [{ id: "c1", name: "t", arguments: "{}" }] }),
      result({ content: "done" }),
    ]);
    const r = await runTurn(request(), p, new AbortController().signal);
    expect(r).toMatchObject({
      content: "done",
      llmCalls: 2,
      toolRounds: 1,
      stopReason: "final",
      usage: { inputTokens: 20, outputTokens: 10, cacheReadTokens: 2 },
    });
    expect(proposed).toEqual(["c1:t"]);
  });

  it("separates the text of successive rounds, identically in the stream and the content", async () => {
    const { p, tokens } = ports([
      result({ content: "I'll read it.", toolCalls: [{ id: "c1", name: "t", arguments: "{}" }] }),
      result({ content: "It says hello." }),
    ]);
    const r = await runTurn(request(), p, new AbortController().signal);
    expect(r.content).toBe("I'll read it.\n\nIt says hello.");
    expect(tokens.join("")).toBe(r.content);
  });

  it("renames duplicate call ids so every proposal is unique", async () => {
    const dup = { id: "dup", name: "t", arguments: "{}" };
    const { p, proposed } = ports([result({ toolCalls: [dup, dup] }), result({ content: "ok" })]);
    await runTurn(request(), p, new AbortController().signal);
    expect(proposed).toEqual(["dup-1:t", "dup-2:t"]);
  });

  it("a terminal tool result ends the turn; an errored one does not", async () => {
    const terminal = ports([result({ toolCalls: [{ id: "c", name: "t", arguments: "{}" }] })], () => ({
      content: "sent",
      isError: false,
      terminal: true,
    }));
    expect(await runTurn(request(), terminal.p, new AbortController().signal)).toMatchObject({
      stopReason: "terminal",
      content: "sent",
      llmCalls: 1,
    });
    const failed = ports(
      [result({ toolCalls: [{ id: "c", name: "t", arguments: "{}" }] }), result({ content: "retry later" })],
      () => ({
        content: "boom",
        isError: true,
        terminal: true,
      }),
    );
    expect(await runTurn(request(), failed.p, new AbortController().signal)).toMatchObject({
      stopReason: "final",
      llmCalls: 2,
    });
  });

  it("honours max_tool_rounds", async () => {
    const loop = Array.from({ length: 10 }, (_, i) =>
      result({ toolCalls: [{ id: `c${String(i)}`, name: "t", arguments: "{}" }] }),
    );
    const { p, tokens } = ports(loop);
    const r = await runTurn(request({ maxToolRounds: 2 }), p, new AbortController().signal);
    expect(r).toMatchObject({ stopReason: "round_limit", toolRounds: 2, llmCalls: 2 });
    expect(tokens.join("")).toContain("Stopped after 2 tool rounds");
  });

  it("shortens oversized tool results before the next model call of a long turn", async () => {
    const { p, calls } = ports(
      [result({ toolCalls: [{ id: "c", name: "t", arguments: "{}" }] }), result({ content: "ok" })],
      () => ({ content: "r".repeat(20_000), isError: false, terminal: false }),
    );
    await runTurn(request({ contextWindow: 2000 }), p, new AbortController().signal);
    expect(calls[1]).toContain("characters cut to fit the context window");
    expect(calls[1]?.length).toBeLessThan(2000);
  });

  it("an aborted signal ends the turn with CANCELLED", async () => {
    const controller = new AbortController();
    controller.abort();
    const { p } = ports([result({ content: "x" })]);
    await expect(runTurn(request(), p, controller.signal)).rejects.toMatchObject({ code: "CANCELLED" });
  });
});
