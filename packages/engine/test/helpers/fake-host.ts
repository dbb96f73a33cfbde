// A hand-written ToolHost with a few in-process tools, for pipeline tests.
import type { InvokeOutcome, ToolHost, ToolSpec } from "../../src/ports.js";

const obj = (props: Record<string, unknown>, required: string[] = []): Record<string, unknown> => ({
  type: "object",
  properties: props,
  required,
  additionalProperties: false,
});

export const TOOLS: ToolSpec[] = [
  {
    name: "demo__echo",
    capabilityId: "demo",
    description: "Echo text",
    parameters: obj({ text: { type: "string" } }, ["text"]),
    policy: "allow",
    terminalOnSuccess: false,
  },
  {
    name: "demo__danger",
    capabilityId: "demo",
    description: "Needs approval",
    parameters: obj({ what: { type: "string" } }),
    policy: "ask",
    terminalOnSuccess: false,
  },
  {
    name: "demo__nuke",
    capabilityId: "demo",
    description: "Always blocked",
    parameters: obj({}),
    policy: "block",
    terminalOnSuccess: false,
  },
  {
    name: "demo__slow",
    capabilityId: "demo",
    description: "Waits ms",
    parameters: obj({ ms: { type: "number" } }, ["ms"]),
    policy: "allow",
    terminalOnSuccess: false,
  },
  {
    name: "demo__finish",
    capabilityId: "demo",
    description: "Terminal",
    parameters: obj({}),
    policy: "allow",
    terminalOnSuccess: true,
  },
  {
    name: "other__echo",
    capabilityId: "other",
    description: "Echo too",
    parameters: obj({ text: { type: "string" } }, ["text"]),
    policy: "allow",
    terminalOnSuccess: false,
  },
];

export class FakeHost implements ToolHost {
  readonly invocations: { tool: string; args: unknown; sessionId: string; workspace: string }[] = [];
  closed = false;

  catalog(): ToolSpec[] {
    return TOOLS;
  }

  groups() {
    return [
      { name: "demo", description: "demo tools", toolCount: 5 },
      { name: "other", description: "other tools", toolCount: 1 },
    ];
  }

  resolve(name: string) {
    const exact = TOOLS.find((t) => t.name === name);
    if (exact) return { tool: exact };
    const bare = TOOLS.filter((t) => t.name.endsWith(`__${name}`));
    if (bare.length === 1 && bare[0]) return { tool: bare[0] };
    if (bare.length > 1) return { error: `Tool name ${name} is ambiguous: ${bare.map((t) => t.name).join(", ")}` };
    return { error: `Unknown tool ${name}.` };
  }

  async invoke(
    tool: ToolSpec,
    args: unknown,
    opts: { sessionId: string; workspace: string; signal: AbortSignal },
  ): Promise<InvokeOutcome> {
    this.invocations.push({ tool: tool.name, args, sessionId: opts.sessionId, workspace: opts.workspace });
    const a = args as { text?: string; ms?: number };
    if (tool.name === "demo__slow") {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, a.ms ?? 0);
        opts.signal.addEventListener("abort", () => {
          clearTimeout(t);
          resolve();
        });
      });
      if (opts.signal.aborted) return { ok: false, content: "cancelled", artifacts: [], error: "cancelled" };
      return { ok: true, content: `slept ${a.ms}`, artifacts: [] };
    }
    return { ok: true, content: `${tool.name}:${JSON.stringify(args)}`, artifacts: [] };
  }

  prompts(groups: readonly string[]): string[] {
    return groups.map((g) => `PROMPT(${g})`);
  }

  status() {
    return [{ id: "demo", state: "ready", message: "", launch: "in-process", toolCount: 5 }];
  }

  async artifact() {
    return undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
