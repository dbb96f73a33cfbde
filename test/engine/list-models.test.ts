// ListModels: the Engine asks the configured endpoint for its models (GET {base_url}/models) with
// the endpoint's key, which only the Engine holds; the client gets the ids, never the key. Real
// Engine, Agent and scripted model server; the second Engine's endpoint refuses the key.
import { createServer } from "node:http";
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toJsonString } from "@bufbuild/protobuf";
import { ListModelsResponseSchema } from "@palisade/protocol/pipeline";
import { built, startE2E } from "./helpers.js";
import type { E2E } from "./helpers.js";

const skip = built();
const KEY = "sk-test-not-secret";

describe.skipIf(skip)("ListModels through the Engine's model gateway", () => {
  let h: E2E;
  let refusing: Server;
  let refusingUrl = "";
  beforeAll(async () => {
    h = await startE2E({ model: { models: ["model-a", "scripted-model", "model-b"] } });
    refusing = createServer((req, res) => {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}`, type: "invalid_request_error" } }),
      );
    });
    await new Promise<void>((r) => refusing.listen(0, "127.0.0.1", () => r()));
    const a = refusing.address();
    refusingUrl = `http://127.0.0.1:${String(typeof a === "object" && a ? a.port : 0)}/v1`;
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await new Promise<void>((r) => (refusing ? refusing.close(() => r()) : r()));
  });

  it("lists the endpoint's models, asked with the key the client never sees", async () => {
    const res = await h.client.listModels({});
    expect(res).toMatchObject({ answered: true, configured: "scripted-model", error: "" });
    expect(res.models).toEqual(["model-a", "scripted-model", "model-b"]);
    expect(res.baseUrl).toBe(h.model.baseURL);
    const asked = h.model.requests.filter((r) => r.method === "GET" && r.path.endsWith("/models"));
    expect(asked).toHaveLength(1);
    expect(asked[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(toJsonString(ListModelsResponseSchema, res)).not.toContain(KEY);
  });

  it("an endpoint that refuses says so, with its answer and without the key", async () => {
    const other = await startE2E({ baseURL: refusingUrl });
    try {
      const res = await other.client.listModels({});
      expect(res.answered).toBe(false);
      expect(res.models).toEqual([]);
      expect(res.error).toContain(`${refusingUrl} answered 401`);
      expect(res.error).toContain("Incorrect API key provided");
      expect(toJsonString(ListModelsResponseSchema, res)).not.toContain(KEY);
    } finally {
      await other.close();
    }
  }, 60_000);
});
