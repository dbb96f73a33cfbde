import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dieWithParent } from "@palisade/capabilities";
import type { StdioWrapper } from "@palisade/capabilities";
import { startHost } from "./helpers.js";

// What a server that cannot be started is reported as, and how fast its restarts are spent.
describe("an MCP server that fails at start", () => {
  const http = createServer((req, res) => {
    req.resume();
    if (req.url === "/bad") res.writeHead(400, { "content-type": "text/plain" }).end("missing X-Tenant header");
    else res.writeHead(401, { "content-type": "text/plain" }).end("token expired");
  });
  let base = "";
  beforeAll(async () => {
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => http.close(() => r())));

  it.each([
    ["/bad", /400/, /missing X-Tenant header/],
    ["/expired", /401/, /requires authori[sz]ation.*palisade capability login remote/i],
  ])(
    "over HTTP answering %s: the status says what the server answered, not that the connection closed",
    async (path, status, text) => {
      const { host } = await startHost([{ id: "remote", mcp: { url: `${base}${path}` }, maxRestarts: 0 }]);
      try {
        const [s] = host.status();
        expect(s?.message).toMatch(status);
        expect(s?.message).toMatch(text);
        expect(s?.message).not.toMatch(/connection closed/);
      } finally {
        await host.stop();
      }
    },
  );

  it("over stdio exiting at once: restarts wait longer each time (doubling from the backoff)", async () => {
    const launches: number[] = [];
    const wrap: StdioWrapper = (spec, context) => {
      launches.push(performance.now());
      return dieWithParent(spec, context);
    };
    const { host } = await startHost(
      [{ id: "broken", mcp: { command: [process.execPath, "-e", "process.exit(3)"] }, maxRestarts: 3 }],
      { mcpWrap: wrap, mcpRestartBackoffMs: 150 },
    );
    try {
      expect(host.status()[0]).toMatchObject({ state: "failed", restarts: 3 });
      expect(launches).toHaveLength(4);
      const gaps = launches.slice(1).map((t, i) => t - (launches[i] as number));
      expect(gaps[0]).toBeGreaterThanOrEqual(150);
      expect(gaps[1]).toBeGreaterThanOrEqual(300);
      expect(gaps[2]).toBeGreaterThanOrEqual(600);
    } finally {
      await host.stop();
    }
  });
});
