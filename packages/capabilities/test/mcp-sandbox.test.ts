import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxedStdio } from "@palisade/capabilities";
import type { CapabilityHost } from "@palisade/capabilities";
import { which } from "@palisade/sandbox";
import { owner, startHost, tempDir } from "./helpers.js";
import { everythingConfig, serverScript } from "./mcp-helpers.js";

// The reference servers, run unmodified in the sandbox the Engine uses for stdio MCP servers.
// Each check is of the effect: the file is absent, the listener never hit.
const noBwrap = which("bwrap") === undefined;

// Not under /tmp: the sandbox has its own /tmp, where a write or a hidden path proves nothing.
const varTmp = (prefix: string): string => mkdtempSync(join("/var/tmp", prefix));

describe.skipIf(noBwrap)("stdio MCP servers in their sandbox", () => {
  const workspace = varTmp("palisade-mcp-ws-");
  const outside = varTmp("palisade-mcp-outside-");
  const dataDir = varTmp("palisade-mcp-data-");
  const secretDir = join(workspace, ".palisade");
  let host: CapabilityHost;
  let plain: CapabilityHost;
  let hits = 0;
  const listener = createServer((_req, res) => {
    hits++;
    res.end("hello");
  });
  let url = "";

  beforeAll(async () => {
    mkdirSync(secretDir);
    writeFileSync(join(secretDir, "token"), "s3cr3t-token-value");
    await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/data.txt`;
    const fs = {
      id: "fs",
      mcp: { command: [process.execPath, serverScript("@modelcontextprotocol/server-filesystem"), workspace, outside] },
    };
    ({ host } = await startHost([fs, everythingConfig()], {
      dataDir,
      startupTimeoutMs: 20_000,
      mcpWrap: sandboxedStdio({ workspace, protect: [dataDir, secretDir], runRoot: tempDir("palisade-mcp-run-") }),
    }));
    // The same server without the sandbox: the control that shows the listener is reachable.
    ({ host: plain } = await startHost([everythingConfig("plain")], { startupTimeoutMs: 20_000 }));
  });
  afterAll(async () => {
    await host?.stop();
    await plain?.stop();
    listener.close();
    for (const d of [workspace, outside, dataDir]) rmSync(d, { recursive: true, force: true });
  });

  it("starts both servers inside bubblewrap", () => {
    expect(host.status().map((s) => s.state)).toEqual(["ready", "ready"]);
  });

  it("writes inside the workspace, and nowhere else, even where the server itself would allow it", async () => {
    const ok = await host.invoke("fs__write_file", { path: join(workspace, "ok.txt"), content: "fine" }, owner);
    expect(ok.ok).toBe(true);
    expect(existsSync(join(workspace, "ok.txt"))).toBe(true);
    const bad = await host.invoke("fs__write_file", { path: join(outside, "marker.txt"), content: "escaped" }, owner);
    expect(bad.ok).toBe(false);
    expect(existsSync(join(outside, "marker.txt"))).toBe(false);
  });

  it("cannot read Palisade's protected directories inside the workspace", async () => {
    const r = await host.invoke("fs__read_text_file", { path: join(secretDir, "token") }, owner);
    expect(r.content).not.toContain("s3cr3t-token-value");
  });

  it("has no network with network: none (the loopback listener is never hit)", async () => {
    const control = await plain.invoke(
      "plain__gzip-file-as-resource",
      { name: "data.gz", data: url, outputType: "resource" },
      owner,
    );
    expect(control.ok).toBe(true);
    expect(hits).toBe(1);
    const r = await host.invoke(
      "everything__gzip-file-as-resource",
      { name: "data.gz", data: url, outputType: "resource" },
      owner,
    );
    expect(r.ok).toBe(false);
    expect(hits).toBe(1);
  });
});
