import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { UserCredentialStore } from "@palisade/capabilities";
import type { CapabilityHost, Elicit, ElicitationRequest } from "@palisade/capabilities";
import { owner, startHost, tempDir } from "./helpers.js";
import { until } from "./mcp-helpers.js";

const SECRET = "docs-secret-93b1e0";
const schema = { type: "object", properties: {} } as const;
const tools: Tool[] = [
  {
    name: "whoami",
    description: "Says whether the request was authorized",
    inputSchema: schema,
    annotations: { readOnlyHint: true },
  },
  { name: "ask-model", description: "Asks the client's model (sampling)", inputSchema: schema },
  { name: "ask-user", description: "Asks the user (elicitation)", inputSchema: schema },
  { name: "add-tool", description: "Adds the tool 'late' and says the list changed", inputSchema: schema },
  // A server that puts its secret where the model would read it.
  {
    name: "leaky",
    description: `Uses the token ${SECRET}`,
    inputSchema: { type: "object", properties: { q: { type: "string", description: `not ${SECRET}` } } },
  },
];

/** The SDK's own low-level server: tools/list one tool per page, over streamable HTTP on loopback. */
function mcpServer(): Server {
  const server = new Server(
    { name: "paged-docs", version: "1.2.3" },
    { capabilities: { tools: { listChanged: true } }, instructions: `Docs server; token ${SECRET}` },
  );
  server.setRequestHandler(ListToolsRequestSchema, (req) => {
    const at = req.params?.cursor === undefined ? 0 : Number(req.params.cursor);
    return { tools: tools.slice(at, at + 1), ...(at + 1 < tools.length ? { nextCursor: String(at + 1) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const text = (t: string, isError = false) => ({
      content: [{ type: "text" as const, text: t }],
      ...(isError ? { isError } : {}),
    });
    switch (req.params.name) {
      case "whoami":
        return text(extra.requestInfo?.headers.authorization === `Bearer ${SECRET}` ? "authorized" : "anonymous");
      case "ask-model":
      case "ask-user":
        try {
          if (req.params.name === "ask-model") {
            await server.request(
              { method: "sampling/createMessage", params: { messages: [], maxTokens: 10 } },
              CreateMessageResultSchema,
            );
            return text("the client answered");
          }
          const answer = await server.request(
            {
              method: "elicitation/create",
              params: {
                message: "name?",
                requestedSchema: { type: "object", properties: { name: { type: "string" } } },
              },
            },
            ElicitResultSchema,
          );
          return text(`answered: ${answer.action}${answer.content ? ` ${JSON.stringify(answer.content)}` : ""}`);
        } catch (err) {
          return text(`refused: ${(err as Error).message}`, true);
        }
      case "add-tool":
        if (!tools.some((t) => t.name === "late"))
          tools.push({
            name: "late",
            description: "Added later",
            inputSchema: schema,
            annotations: { destructiveHint: true },
          });
        await server.sendToolListChanged();
        return text("added");
      default:
        return text(`unknown tool ${req.params.name}`, true);
    }
  });
  return server;
}

describe("an MCP server over streamable HTTP", () => {
  let http: HttpServer;
  let host: CapabilityHost;
  let url: string;

  beforeAll(async () => {
    const sessions = new Map<string, StreamableHTTPServerTransport>();
    http = createServer((req, res) => {
      void (async () => {
        const id = req.headers["mcp-session-id"];
        let transport = typeof id === "string" ? sessions.get(id) : undefined;
        if (!transport) {
          const t = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (sid) => void sessions.set(sid, t),
          });
          await mcpServer().connect(t);
          transport = t;
        }
        await transport.handleRequest(req, res);
      })();
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const dataDir = tempDir();
    await new UserCredentialStore(join(dataDir, "credentials.json")).set("local", "docs", "docs_token", SECRET);
    ({ host } = await startHost(
      [{ id: "docs", mcp: { url, headers: { Authorization: "Bearer ${secret:docs_token}" } } }],
      { dataDir },
    ));
  });
  afterAll(async () => {
    await host?.stop();
    http?.closeAllConnections();
    await new Promise((r) => http?.close(r));
  });

  it("connects, follows tools/list pagination and reports the server", () => {
    expect(host.status()[0]).toMatchObject({ state: "ready", launchMode: "address", address: url });
    expect(host.catalog().map((t) => t.fullName)).toEqual([
      "docs__whoami",
      "docs__ask-model",
      "docs__ask-user",
      "docs__add-tool",
      "docs__leaky",
    ]);
    expect(host.catalog()[0]?.network).toEqual({ mode: "allowlist", hosts: [new URL(url).host] });
    expect(host.mcpServer("docs")).toMatchObject({
      name: "paged-docs",
      version: "1.2.3",
      capabilities: { tools: { listChanged: true } },
    });
  });

  it("sends the secret only in the configured header", async () => {
    const r = await host.invoke("docs__whoami", {}, owner);
    expect(r.content).toBe("authorized");
    expect(JSON.stringify(host.status())).not.toContain(SECRET);
  });

  it("keeps the secret out of what the model reads: tool descriptions, schemas and instructions", () => {
    const leaky = host.resolve("docs__leaky");
    expect(leaky.description).toBe("Uses the token [redacted]");
    expect(JSON.stringify(host.catalog())).not.toContain(SECRET);
    expect(host.prompts()).toEqual([{ capabilityId: "docs", text: "Docs server; token [redacted]" }]);
  });

  it("refuses sampling with a clear error", async () => {
    const sampling = await host.invoke("docs__ask-model", {}, owner);
    expect(sampling.ok).toBe(false);
    expect(sampling.content).toContain("sampling is not supported");
  });

  it("declines an elicitation when the call has no one to ask (e.g. run without a terminal)", async () => {
    const r = await host.invoke("docs__ask-user", {}, owner);
    expect(r).toMatchObject({ ok: true, content: "answered: decline" });
  });

  it("hands an elicitation to the call's asker (the server's words as they are) and its answer to the server", async () => {
    const asked: ElicitationRequest[] = [];
    const elicit: Elicit = async (request) => {
      asked.push(request);
      return { action: "accept", content: { name: "Ada" } };
    };
    const r = await host.invoke("docs__ask-user", {}, { ...owner, elicit });
    expect(asked).toEqual([
      {
        capabilityId: "docs",
        tool: "ask-user",
        message: "name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } } },
      },
    ]);
    expect(r.content).toBe('answered: accept {"name":"Ada"}');
  });

  it("the call's deadline stops while its user is asked: a form answered after the deadline still counts", async () => {
    // The user takes longer than the whole call may: the time spent answering is not the server's.
    const elicit: Elicit = async () => {
      await new Promise((r) => setTimeout(r, 600));
      return { action: "accept", content: { name: "Ada" } };
    };
    const r = await host.invoke("docs__ask-user", {}, { ...owner, timeoutMs: 200, elicit });
    expect(r).toMatchObject({ ok: true, content: 'answered: accept {"name":"Ada"}' });
  });

  it("refreshes the catalog on notifications/tools/list_changed", async () => {
    expect(host.catalog().some((t) => t.fullName === "docs__late")).toBe(false);
    const r = await host.invoke("docs__add-tool", {}, owner);
    expect(r.content).toBe("added");
    await until(() => host.catalog().some((t) => t.fullName === "docs__late"), "the new tool in the catalog");
    expect(host.resolve("docs__late").policy).toBe("ask");
  });
});

describe("an MCP server over HTTP that is down", () => {
  it("is not ready, not failed, and is used once it answers", async () => {
    const listen = (port = 0) =>
      new Promise<HttpServer>((resolve) => {
        const sessions = new Map<string, StreamableHTTPServerTransport>();
        const srv = createServer((req, res) => {
          void (async () => {
            const id = req.headers["mcp-session-id"];
            let transport = typeof id === "string" ? sessions.get(id) : undefined;
            if (!transport) {
              const t = new StreamableHTTPServerTransport({
                sessionIdGenerator: () => randomUUID(),
                onsessioninitialized: (sid) => void sessions.set(sid, t),
              });
              await mcpServer().connect(t);
              transport = t;
            }
            await transport.handleRequest(req, res);
          })();
        });
        srv.listen(port, "127.0.0.1", () => resolve(srv));
      });
    // A port that was free a moment ago: nothing listens there yet.
    const probe = await listen();
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const { host } = await startHost([{ id: "later", mcp: { url: `http://127.0.0.1:${port}/mcp` }, maxRestarts: 1 }], {
      recheckIntervalMs: 300,
    });
    let srv: HttpServer | undefined;
    try {
      expect(host.status()[0]).toMatchObject({ state: "not_ready" });
      expect(host.status()[0]?.message).toContain("is not reachable");
      srv = await listen(port);
      await until(() => host.status()[0]?.state === "ready", "the server to be used once it answers");
      expect((await host.invoke("later__whoami", {}, owner)).content).toBe("anonymous");
    } finally {
      await host.stop();
      srv?.closeAllConnections();
      await new Promise((r) => srv?.close(r));
    }
  });
});
