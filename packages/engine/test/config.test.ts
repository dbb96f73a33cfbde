import { homedir } from "node:os";
import { describe, expect, it } from "vitest";
import { ConfigError, isLoopbackTcp, isModelConfigured, mergeCapabilities, parseConfig } from "@palisade/config";

const FULL = `
model:
  base_url: http://localhost:11434/v1
  name: llama3.1
  context_window: 32768
shield:
  policy: strict
  llm_judge: { enabled: true, model: judge }
capabilities:
  - id: files
    config: { max_bytes: 1000 }
  - id: weather
    address: 127.0.0.1:5000
limits:
  approval_timeout_s: 30
  agent_restart_budget: 3
  sub_agents: { max_concurrent: 2 }
listen:
  tcp: 127.0.0.1:7420
agent:
  allow_unsandboxed: false
`;

describe("config", () => {
  it("parses every section, converts seconds and keeps defaults", () => {
    const c = parseConfig(FULL, { file: "/etc/p/config.yaml", env: {} });
    expect(c.model).toEqual({
      baseUrl: "http://localhost:11434/v1",
      name: "llama3.1",
      contextWindow: 32768,
      headers: {},
      extraBody: {},
      idleTimeoutMs: 60_000,
      requestTimeoutMs: 300_000,
      maxRetries: 3,
      maxRetryWaitMs: 120_000,
      textToolCalls: "off",
      streamUsage: "auto",
    });
    expect(c.shield.policy).toBe("strict");
    expect(c.shield.llmJudge).toEqual({ enabled: true, model: "judge" });
    expect(c.limits.approvalTimeoutMs).toBe(30_000);
    expect(c.limits.agentRestartBudget).toBe(3);
    expect(c.limits.agentRestartWindowMs).toBe(60_000);
    expect(c.limits.subAgents.maxConcurrent).toBe(2);
    expect(c.listen.tcp).toBe("127.0.0.1:7420");
    expect(c.capabilities.map((x) => x.id)).toEqual(["files", "weather"]);
    expect(isModelConfigured(c.model)).toBe(true);
  });

  it("sub_agents.inherit_grants is off unless chosen; anything but a boolean is refused with its path", () => {
    expect(parseConfig("", { env: {} }).subAgents.inheritGrants).toBe(false);
    expect(parseConfig("sub_agents:\n  inherit_grants: true\n", { env: {} }).subAgents.inheritGrants).toBe(true);
    expect(() => parseConfig("sub_agents:\n  inherit_grants: yes please\n", { file: "c.yaml", env: {} })).toThrow(
      /c\.yaml: sub_agents\.inherit_grants: /,
    );
    expect(() => parseConfig("sub_agents:\n  inherit: true\n", { file: "c.yaml", env: {} })).toThrow(
      /c\.yaml: sub_agents\.inherit: unknown key/,
    );
  });

  it("environment overrides win over the file", () => {
    const c = parseConfig(FULL, {
      env: { OPENAI_API_KEY: "sk-env", OPENAI_BASE_URL: "https://api.openai.com/v1", PALISADE_MODEL: "gpt-4.1" },
    });
    expect(c.model).toMatchObject({ apiKey: "sk-env", baseUrl: "https://api.openai.com/v1", name: "gpt-4.1" });
  });

  it("an empty file is the defaults; no URL and no key means unconfigured", () => {
    const c = parseConfig("", { env: {} });
    expect(c.limits.approvalTimeoutMs).toBe(300_000);
    expect(c.limits.agentRestartBudget).toBe(5);
    expect(isModelConfigured(c.model)).toBe(false);
  });

  it("lists every problem with its path and refuses", () => {
    const bad = `
model:
  base_url: localhost:1234
  context_window: "big"
  colour: red
limits:
  approval_timeout_s: -1
listen:
  tcp: 0.0.0.0:7420
capabilities:
  - command: [x]
  - id: files
  - id: files
`;
    let err: unknown;
    try {
      parseConfig(bad, { file: "c.yaml", env: {} });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const paths = (err as ConfigError).issues.map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "model.base_url",
        "model.context_window",
        "model.colour",
        "limits.approval_timeout_s",
        "listen.tcp",
        "capabilities[0].id",
        "capabilities[2].id",
      ]),
    );
    expect((err as Error).message).toContain("c.yaml: model.colour: unknown key");
  });

  it("reads the model server settings (headers, extra_body, time limits, retries, text tool calls, stream usage)", () => {
    const c = parseConfig(
      `
model:
  base_url: http://localhost:11434/v1
  name: qwen3
  headers: { HTTP-Referer: https://example.org, X-Title: Palisade }
  extra_body: { options: { num_ctx: 32768 } }
  idle_timeout_s: 30
  request_timeout_s: 600
  max_retries: 0
  max_retry_wait_s: 10
  text_tool_calls: auto
  stream_usage: off
`,
      { env: {} },
    );
    expect(c.model).toMatchObject({
      headers: { "HTTP-Referer": "https://example.org", "X-Title": "Palisade" },
      extraBody: { options: { num_ctx: 32768 } },
      idleTimeoutMs: 30_000,
      requestTimeoutMs: 600_000,
      maxRetries: 0,
      maxRetryWaitMs: 10_000,
      textToolCalls: "auto",
      streamUsage: "off",
    });
    // YAML's booleans are read as the obvious choice.
    expect(parseConfig("model:\n  stream_usage: false\n  text_tool_calls: true\n", { env: {} }).model).toMatchObject({
      streamUsage: "off",
      textToolCalls: "auto",
    });
  });

  it("reports each bad model server setting at its path", () => {
    const bad = `
model:
  headers: { "bad header": x, Authorization: Bearer sk-x, api-key: sk-azure, Content-Type: text/plain, X-Ok: ok, X-List: [1] }
  extra_body: { model: other, options: { num_ctx: 8192 } }
  idle_timeout_s: 0
  request_timeout_s: soon
  max_retries: 1.5
  max_retry_wait_s: -3
  text_tool_calls: sometimes
  stream_usage: always
`;
    let err: unknown;
    try {
      parseConfig(bad, { file: "c.yaml", env: {} });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const issues = Object.fromEntries((err as ConfigError).issues.map((i) => [i.path, i.message]));
    expect(Object.keys(issues).sort()).toEqual(
      [
        "model.extra_body.model",
        "model.headers.Authorization",
        "model.headers.Content-Type",
        "model.headers.api-key",
        "model.headers.X-List",
        "model.headers.bad header",
        "model.idle_timeout_s",
        "model.max_retries",
        "model.max_retry_wait_s",
        "model.request_timeout_s",
        "model.stream_usage",
        "model.text_tool_calls",
      ].sort(),
    );
    expect(issues["model.headers.Authorization"]).toMatch(/credential.*model.api_key/);
    expect(issues["model.headers.api-key"]).toMatch(/credential/);
    expect(issues["model.headers.Content-Type"]).toMatch(/set by Palisade/);
    expect(issues["model.stream_usage"]).toMatch(/auto, on, off/);
    expect(() => parseConfig("model:\n  extra_body: [1]\n", { env: {} })).toThrow(
      /model.extra_body: must be a mapping/,
    );
  });

  it("limits.client_max_message: ClientService's request limit, 1 MiB by default, 1 to 16 MiB", () => {
    expect(parseConfig("", { env: {} }).limits.clientMaxMessageBytes).toBe(1024 * 1024);
    expect(parseConfig("limits: { client_max_message: 4MiB }", { env: {} }).limits.clientMaxMessageBytes).toBe(
      4 * 1024 * 1024,
    );
    for (const bad of ["64KiB", "32MiB", "lots"]) {
      expect(() => parseConfig(`limits: { client_max_message: ${bad} }`, { env: {} })).toThrow(
        /limits\.client_max_message: must be a size from 1MiB to 16MiB/,
      );
    }
  });

  it("limits.agent_idle_stop_s: 600 s by default, 0 allowed (never stop), a negative value refused at its path", () => {
    expect(parseConfig("", { env: {} }).limits.agentIdleStopMs).toBe(600_000);
    expect(parseConfig("limits: { agent_idle_stop_s: 30 }", { env: {} }).limits.agentIdleStopMs).toBe(30_000);
    expect(parseConfig("limits: { agent_idle_stop_s: 0 }", { env: {} }).limits.agentIdleStopMs).toBe(0);
    expect(() => parseConfig("limits: { agent_idle_stop_s: -5 }", { env: {} })).toThrow(
      /limits\.agent_idle_stop_s: must be a number >= 0/,
    );
  });

  it("limits.capability_idle_stop_s: 600 s by default, 0 allowed (never stop), a negative or non-number refused at its path", () => {
    expect(parseConfig("", { env: {} }).limits.capabilityIdleStopMs).toBe(600_000);
    expect(parseConfig("limits: { capability_idle_stop_s: 2.5 }", { env: {} }).limits.capabilityIdleStopMs).toBe(2500);
    expect(parseConfig("limits: { capability_idle_stop_s: 0 }", { env: {} }).limits.capabilityIdleStopMs).toBe(0);
    for (const bad of ["-1", "soon", "[1]"]) {
      expect(() => parseConfig(`limits: { capability_idle_stop_s: ${bad} }`, { env: {} })).toThrow(
        /limits\.capability_idle_stop_s: must be a number >= 0/,
      );
    }
  });

  it("reads the sandbox section: required, hidden, read-only and writable paths (~ is the home), private addresses", () => {
    const c = parseConfig(
      "sandbox:\n  required: false\n  hide: [~/secrets, /srv/keys]\n  read_only: [rel/dir]\n  writable: [~/.cache]\n  allow_addresses: [10.1.2.3]\n",
      { file: "/etc/p/config.yaml", env: {} },
    );
    expect(c.sandbox.required).toBe(false);
    expect(c.sandbox.hide).toEqual([`${homedir()}/secrets`, "/srv/keys"]);
    expect(c.sandbox.readOnly).toEqual(["/etc/p/rel/dir"]);
    expect(c.sandbox.writable).toEqual([`${homedir()}/.cache`]);
    expect(c.sandbox.allowAddresses).toEqual(["10.1.2.3"]);
    expect(parseConfig("", { env: {} }).sandbox).toEqual({
      required: true,
      hide: [],
      readOnly: [],
      writable: [],
      allowAddresses: [],
    });
  });

  it("names each bad sandbox field", () => {
    let err: unknown;
    try {
      parseConfig(
        "sandbox:\n  required: maybe\n  hide: /one/path\n  allow_addresses: [registry.local]\n  network: any\n",
        { file: "c.yaml", env: {} },
      );
    } catch (e) {
      err = e;
    }
    const issues = (err as ConfigError).issues.map((i) => `${i.path}: ${i.message}`);
    expect(issues).toEqual(
      expect.arrayContaining([
        'sandbox.required: must be true or false, got "maybe"',
        expect.stringMatching(/^sandbox.hide: must be a list of paths/),
        expect.stringMatching(/^sandbox.allow_addresses\[0\]: must be an IP address/),
        expect.stringMatching(/^sandbox.network: unknown key/),
      ]),
    );
  });

  it("reports YAML syntax errors", () => {
    expect(() => parseConfig("model: [unclosed", { file: "x.yaml" })).toThrow(ConfigError);
  });

  it("refuses a workspace that does not exist, naming the field and the directory", () => {
    let err: unknown;
    try {
      parseConfig("workspace: /nonexistent/palisade-ws\n", { file: "/etc/p/config.yaml", env: {} });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues).toEqual([
      {
        file: "/etc/p/config.yaml",
        path: "workspace",
        message: "/nonexistent/palisade-ws does not exist or is not a directory: create it or fix the path",
      },
    ]);
    expect(parseConfig(`workspace: ${process.cwd()}\n`, { env: {} }).workspace).toBe(process.cwd());
  });

  it("merges user capability entries over the built-ins by id", () => {
    const defaults = [
      { id: "files", command: ["node", "files.js"], config: { workspace: "/w", a: 1 } },
      { id: "mail", command: ["node", "mail.js"] },
    ];
    const merged = mergeCapabilities(defaults, [
      { id: "files", config: { a: 2 } },
      { id: "mail", enabled: false },
      { id: "weather", address: "127.0.0.1:1" },
    ]);
    expect(merged).toEqual([
      { id: "files", command: ["node", "files.js"], config: { workspace: "/w", a: 2 } },
      { id: "weather", address: "127.0.0.1:1" },
    ]);
    expect(mergeCapabilities(defaults, [{ id: "files", address: "h:1" }])[0]).toEqual({
      id: "files",
      address: "h:1",
      config: { workspace: "/w", a: 1 },
    });
  });

  it("accepts only loopback TCP", () => {
    expect(isLoopbackTcp("127.0.0.1:1")).toBe(true);
    expect(isLoopbackTcp("[::1]:1")).toBe(true);
    expect(isLoopbackTcp("localhost:1")).toBe(true);
    expect(isLoopbackTcp("0.0.0.0:1")).toBe(false);
    expect(isLoopbackTcp("10.0.0.1:1")).toBe(false);
  });
});
