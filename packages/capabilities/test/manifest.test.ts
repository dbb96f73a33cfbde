import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ValidationError, loadManifest, parseManifest, validateManifest } from "@palisade/capabilities";

type Doc = Record<string, unknown>;
const FILE = "/caps/demo/manifest.yaml";

function base(): Doc {
  return {
    id: "demo",
    tools: [
      { name: "echo", description: "Echo", input_schema: { type: "object", properties: { text: { type: "string" } } } },
    ],
  };
}

function problems(doc: unknown): { path: string; message: string }[] {
  try {
    validateManifest(doc, FILE);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    const v = err as ValidationError;
    expect(v.message).toContain(FILE);
    return v.problems.map((p) => ({ path: p.path, message: p.message }));
  }
  return [];
}

// One failing manifest per rule of the Selu manifest format: [rule, mutate, expected path, message fragment].
const rules: [string, (d: Doc) => void, string, string][] = [
  ["id is required", (d) => delete d.id, "id", "is required"],
  ["id pattern", (d) => (d.id = "Web_Search"), "id", "lowercase letters"],
  ["id no trailing hyphen", (d) => (d.id = "web-"), "id", "lowercase letters"],
  ["class enum", (d) => (d.class = "service"), "class", "must be tool or environment"],
  ["image must be a non-empty string", (d) => (d.image = ""), "image", "must not be empty"],
  ["tool_source enum", (d) => (d.tool_source = "remote"), "tool_source", "must be manifest or dynamic"],
  [
    "discovery_tool_name is a tool name",
    (d) => Object.assign(d, { tool_source: "dynamic", tools: [], discovery_tool_name: "list tools" }),
    "discovery_tool_name",
    "tool name",
  ],
  ["tools is an array", (d) => (d.tools = { echo: {} }), "tools", "must be a list"],
  ["manifest mode needs tools", (d) => (d.tools = []), "tools", "at least one tool"],
  [
    "dynamic mode needs empty tools",
    (d) => (d.tool_source = "dynamic"),
    "tools",
    "must be empty when tool_source is dynamic",
  ],
  ["tool name required", (d) => delete (d.tools as Doc[])[0]!.name, "tools[0].name", "is required"],
  ["tool name pattern", (d) => ((d.tools as Doc[])[0]!.name = "echo it"), "tools[0].name", "letters, digits"],
  [
    "tool names unique",
    (d) => (d.tools as Doc[]).push({ ...(d.tools as Doc[])[0] }),
    "tools[1].name",
    "duplicate tool name",
  ],
  [
    "tool description required",
    (d) => delete (d.tools as Doc[])[0]!.description,
    "tools[0].description",
    "is required",
  ],
  [
    "tool input_schema required",
    (d) => delete (d.tools as Doc[])[0]!.input_schema,
    "tools[0].input_schema",
    "is required",
  ],
  [
    "input_schema is an object",
    (d) => ((d.tools as Doc[])[0]!.input_schema = "string"),
    "tools[0].input_schema",
    "must be a mapping",
  ],
  [
    "input_schema compiles",
    (d) => ((d.tools as Doc[])[0]!.input_schema = { type: "object", properties: { a: { type: "strnig" } } }),
    "tools[0].input_schema",
    "not a valid JSON Schema",
  ],
  [
    "input_schema describes an object",
    (d) => ((d.tools as Doc[])[0]!.input_schema = { type: "array" }),
    "tools[0].input_schema",
    "must describe an object",
  ],
  [
    "requires_confirmation boolean",
    (d) => ((d.tools as Doc[])[0]!.requires_confirmation = "yes"),
    "tools[0].requires_confirmation",
    "must be true or false",
  ],
  [
    "recommended_policy enum",
    (d) => ((d.tools as Doc[])[0]!.recommended_policy = "maybe"),
    "tools[0].recommended_policy",
    "must be allow, ask or block",
  ],
  [
    "terminal_on_success boolean",
    (d) => ((d.tools as Doc[])[0]!.terminal_on_success = 1),
    "tools[0].terminal_on_success",
    "must be true or false",
  ],
  [
    "streaming boolean",
    (d) => ((d.tools as Doc[])[0]!.streaming = "yes"),
    "tools[0].streaming",
    "must be true or false",
  ],
  ["network is an object", (d) => (d.network = "none"), "network", "must be a mapping"],
  ["network.mode enum", (d) => (d.network = { mode: "some" }), "network.mode", "must be none, allowlist or any"],
  [
    "network.hosts entries are strings",
    (d) => (d.network = { mode: "allowlist", hosts: [443] }),
    "network.hosts[0]",
    "must be a string",
  ],
  [
    "network.hosts host syntax",
    (d) => (d.network = { mode: "allowlist", hosts: ["https://api.x.com"] }),
    "network.hosts[0]",
    "not a URL",
  ],
  [
    "network.hosts host name",
    (d) => (d.network = { mode: "allowlist", hosts: ["bad_host!"] }),
    "network.hosts[0]",
    "is not a host name",
  ],
  [
    "network.hosts port range",
    (d) => (d.network = { mode: "allowlist", hosts: ["api.x.com:70000"] }),
    "network.hosts[0]",
    "port must be 1-65535",
  ],
  [
    "network.hosts wildcard only leading",
    (d) => (d.network = { mode: "allowlist", hosts: ["api.*.com"] }),
    "network.hosts[0]",
    'leading "*."',
  ],
  ["allowlist needs hosts", (d) => (d.network = { mode: "allowlist" }), "network.hosts", "at least one host"],
  [
    "hosts only with allowlist",
    (d) => (d.network = { mode: "any", hosts: ["a.com"] }),
    "network.hosts",
    "only used with network.mode: allowlist",
  ],
  ["filesystem enum", (d) => (d.filesystem = "home"), "filesystem", "must be none, temp or workspace"],
  [
    "workspace only for environment",
    (d) => (d.filesystem = "workspace"),
    "filesystem",
    "only allowed for class: environment",
  ],
  ["credentials is an array", (d) => (d.credentials = { KEY: "system" }), "credentials", "must be a list"],
  ["credential name required", (d) => (d.credentials = [{ scope: "system" }]), "credentials[0].name", "is required"],
  [
    "credential name is an env var name",
    (d) => (d.credentials = [{ name: "api-key", scope: "system" }]),
    "credentials[0].name",
    "environment variable name",
  ],
  ["credential scope required", (d) => (d.credentials = [{ name: "KEY" }]), "credentials[0].scope", "is required"],
  [
    "credential scope enum",
    (d) => (d.credentials = [{ name: "KEY", scope: "team" }]),
    "credentials[0].scope",
    "must be system or user",
  ],
  [
    "credential_type is secret",
    (d) => (d.credentials = [{ name: "KEY", scope: "user", credential_type: "oauth" }]),
    "credentials[0].credential_type",
    "must be secret",
  ],
  [
    "credential required boolean",
    (d) => (d.credentials = [{ name: "KEY", scope: "user", required: "no" }]),
    "credentials[0].required",
    "must be true or false",
  ],
  [
    "credential description string",
    (d) => (d.credentials = [{ name: "KEY", scope: "user", description: 3 }]),
    "credentials[0].description",
    "must be a string",
  ],
  [
    "credential names unique",
    (d) =>
      (d.credentials = [
        { name: "KEY", scope: "user" },
        { name: "KEY", scope: "system" },
      ]),
    "credentials[1].name",
    "duplicate credential",
  ],
  ["resources is an object", (d) => (d.resources = 128), "resources", "must be a mapping"],
  [
    "max_memory_mb positive integer",
    (d) => (d.resources = { max_memory_mb: 0 }),
    "resources.max_memory_mb",
    "must be an integer >= 1",
  ],
  [
    "max_memory_mb integer",
    (d) => (d.resources = { max_memory_mb: 1.5 }),
    "resources.max_memory_mb",
    "must be an integer",
  ],
  [
    "max_cpu_fraction > 0",
    (d) => (d.resources = { max_cpu_fraction: 0 }),
    "resources.max_cpu_fraction",
    "must be a number > 0",
  ],
  [
    "max_cpu_seconds positive integer",
    (d) => (d.resources = { max_cpu_seconds: -1 }),
    "resources.max_cpu_seconds",
    "must be an integer >= 1",
  ],
  [
    "pids_limit positive integer",
    (d) => (d.resources = { pids_limit: "many" }),
    "resources.pids_limit",
    "must be an integer",
  ],
  [
    "max_file_size_mb positive integer",
    (d) => (d.resources = { max_file_size_mb: 0 }),
    "resources.max_file_size_mb",
    "must be an integer >= 1",
  ],
];

describe("manifest rules (one failing manifest per rule)", () => {
  it("the base manifest is valid", () => {
    expect(problems(base())).toEqual([]);
  });

  it("reads max_file_size_mb (a Palisade extension) and leaves it unset by default", () => {
    const d = base();
    expect(validateManifest(d, "m.yaml").resources.maxFileSizeMb).toBeUndefined();
    d.resources = { max_file_size_mb: 64 };
    expect(validateManifest(d, "m.yaml").resources.maxFileSizeMb).toBe(64);
  });
  it.each(rules)("%s", (_rule, mutate, path, fragment) => {
    const doc = base();
    mutate(doc);
    const found = problems(doc);
    expect(found.length, `expected a problem at ${path}`).toBeGreaterThan(0);
    const hit = found.find((p) => p.path === path);
    expect(hit, `problems were: ${JSON.stringify(found)}`).toBeDefined();
    expect(hit?.message).toContain(fragment);
  });

  it("reports every problem at once and loads nothing", () => {
    const found = problems({ id: "Bad", class: "x", tools: [{ name: "" }] });
    expect(found.map((p) => p.path)).toEqual(
      expect.arrayContaining(["id", "class", "tools[0].name", "tools[0].description", "tools[0].input_schema"]),
    );
  });

  it("the root must be a mapping", () => {
    expect(problems(["id"])[0]?.message).toContain("YAML mapping");
  });

  it("YAML syntax errors carry line and column", () => {
    try {
      parseManifest("id: demo\ntools: [\n  - {name: x\n", FILE);
      expect.fail("should throw");
    } catch (err) {
      expect((err as ValidationError).problems[0]).toMatchObject({
        path: "",
        message: expect.stringMatching(/^YAML syntax error: /),
        line: expect.any(Number),
        col: expect.any(Number),
      });
      expect((err as Error).message).toMatch(/: YAML syntax error: .* \(line \d+, column \d+\)/);
      expect((err as Error).message).toContain(FILE);
    }
  });
});

describe("manifest defaults and Selu manifests", () => {
  it("applies every default of the Selu manifest format", () => {
    const m = validateManifest(base(), FILE);
    expect(m).toMatchObject({
      class: "tool",
      toolSource: "manifest",
      discoveryToolName: "list_tools",
      network: { mode: "none", hosts: [] },
      filesystem: "none",
      credentials: [],
      resources: { maxMemoryMb: 128, maxCpuFraction: 0.5, maxCpuSeconds: 30, pidsLimit: 64 },
    });
    expect(m.tools[0]).toMatchObject({ requiresConfirmation: false, terminalOnSuccess: false });
    expect(m.tools[0]?.recommendedPolicy).toBeUndefined();
    expect(m.image).toBeUndefined();
  });

  it("credential defaults: required true, type secret, description empty", () => {
    const m = validateManifest({ ...base(), credentials: [{ name: "KEY", scope: "user" }] }, FILE);
    expect(m.credentials[0]).toEqual({
      name: "KEY",
      scope: "user",
      credentialType: "secret",
      required: true,
      description: "",
    });
  });

  const seluExamples: [string, string][] = [
    [
      "web-search",
      `id: web-search
class: tool
image: ghcr.io/selu-bot/cap-web-search:2.1.0

tools:
  - name: search_web
    description: Search the web and return relevant results
    input_schema:
      type: object
      properties:
        query:
          type: string
          description: The search query
        max_results:
          type: integer
          description: Maximum results to return
          default: 5
      required: [query]
    recommended_policy: allow

network:
  mode: allowlist
  hosts:
    - "duckduckgo.com:443"
    - "api.openai.com:443"

credentials:
  - name: SEARCH_API_KEY
    scope: system
    required: false
    description: >
      Optional API key for enhanced search results.
      Get one from https://serpapi.com if you want more reliable search data.

resources:
  max_memory_mb: 256
  max_cpu_fraction: 0.5
  pids_limit: 32
`,
    ],
    [
      "python-env",
      `id: python-env
class: environment
image: ghcr.io/selu-bot/cap-python-env:1.0.0
tools:
  - name: execute_python
    description: Execute Python code in an isolated environment
    input_schema:
      type: object
      properties:
        code:
          type: string
          description: Python code to execute
      required: [code]
    recommended_policy: ask
filesystem: workspace
credentials:
  - name: OPENAI_API_KEY
    scope: user
    required: true
    description: >
      Your OpenAI API key.
resources:
  max_memory_mb: 512
  max_cpu_fraction: 1.0
  max_cpu_seconds: 60
  pids_limit: 128
`,
    ],
    [
      "github-integration",
      `id: github-integration
class: tool
image: ghcr.io/selu-bot/cap-github:1.5.0
tool_source: dynamic
discovery_tool_name: discover_repositories
tools: []   # empty - populated by discovery at runtime
network:
  mode: allowlist
  hosts:
    - "api.github.com:443"
    - "github.com:443"
    - "*.githubusercontent.com"
credentials:
  - name: GITHUB_TOKEN
    scope: user
    required: true
resources:
  max_memory_mb: 256
  max_cpu_fraction: 0.8
`,
    ],
  ];
  it.each(seluExamples)("the seed's %s manifest loads unchanged", (id, text) => {
    const m = parseManifest(text, FILE);
    expect(m.id).toBe(id);
    expect(m.image).toMatch(/^ghcr\.io\/selu-bot\//);
    expect(m.warnings).toEqual([]);
  });

  it("unknown fields are warnings, not errors (Selu manifests carry more)", () => {
    const m = validateManifest({ ...base(), version: "1.2.0", display_name: "Demo" }, FILE);
    expect(m.warnings).toEqual(["version: unknown field, ignored", "display_name: unknown field, ignored"]);
  });

  it("loadManifest reads a directory and attaches prompt.md", async () => {
    const dir = mkdtempSync(join(tmpdir(), "palisade-manifest-"));
    mkdirSync(join(dir, "demo"));
    writeFileSync(join(dir, "demo", "manifest.yaml"), stringify(base()));
    writeFileSync(join(dir, "demo", "prompt.md"), "Use demo__echo to repeat text.\n");
    const m = await loadManifest(join(dir, "demo"));
    expect(m.prompt).toBe("Use demo__echo to repeat text.");
    expect(m.file).toBe(join(dir, "demo", "manifest.yaml"));
    await expect(loadManifest(join(dir, "missing.yaml"))).rejects.toThrow(/file not found/);
  });
});
