import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "@palisade/protocol";
import { Capability } from "@palisade/protocol/capability";
import { defineCapability, serveCapability } from "@palisade/capability-sdk";
import { json, parse } from "./helpers.js";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts examples/echo.ts as a real process; resolves with the address it prints. */
async function startEcho(
  port: number,
): Promise<{ child: ChildProcess; address: string; stderr: () => string; exited: Promise<number | null> }> {
  const child = spawn(
    process.execPath,
    ["--conditions=source", "--import", "tsx", "examples/echo.ts", "--insecure-dev"],
    {
      cwd: packageDir,
      env: { PATH: process.env.PATH, PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  children.push(child);
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const address = await new Promise<string>((resolve, reject) => {
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
      const m = /capability echo listening on (\S+)/.exec(stderr);
      if (m?.[1]) resolve(m[1]);
    });
    void exited.then((code) => reject(new Error(`echo exited with ${code} before listening:\n${stderr}`)));
  });
  return { child, address, stderr: () => stderr, exited };
}

describe("a capability process", () => {
  it("run standalone with --insecure-dev: listens on PORT with a warning, finishes running calls on SIGTERM and exits 0", async () => {
    const port = await freePort();
    const echo = await startEcho(port);
    expect(echo.address).toBe(`127.0.0.1:${port}`);
    expect(echo.stderr()).toContain("WARNING: capability echo serves WITHOUT authentication (--insecure-dev)");

    const client = createClient(Capability, echo.address);
    try {
      const res = await client.invoke({ toolName: "echo", argsJson: json({ text: "hi there" }) });
      expect(parse(res.resultJson)).toEqual({ text: "hi there" });

      const slow = client.invoke({ toolName: "sleep", argsJson: json({ ms: 500 }) });
      await new Promise((r) => setTimeout(r, 150));
      echo.child.kill("SIGTERM");
      const finished = await slow;
      expect(finished.error).toBe("");
      expect(parse(finished.resultJson)).toEqual({ slept: 500 });
      expect(await echo.exited).toBe(0);
      expect(echo.stderr()).toContain("capability echo: SIGTERM received, stopping");
      expect(echo.stderr()).toContain("capability echo stopped");
    } finally {
      client.close();
    }
  });
});

describe("serveCapability options", () => {
  const cap = defineCapability({
    id: "p",
    tools: [{ name: "t", description: "A tool.", inputSchema: { type: "object" }, handler: async () => null }],
  });

  it("honours PORT from the environment and prints the address", async () => {
    const port = await freePort();
    const logs: string[] = [];
    const server = await serveCapability(cap, {
      env: { PORT: String(port) },
      insecureDev: true,
      log: (l) => logs.push(l),
    });
    try {
      expect(server.address).toBe(`127.0.0.1:${port}`);
      expect(logs).toEqual([
        `WARNING: capability p serves WITHOUT authentication (--insecure-dev): any process that can reach 127.0.0.1:${port} can call its tools. Use this only for development.`,
        `capability p listening on 127.0.0.1:${port}`,
      ]);
    } finally {
      await server.close();
    }
    await server.closed;
  });

  it("refuses a PORT that is not a port number, saying how to fix it", async () => {
    await expect(
      serveCapability(cap, { env: { PORT: "http" }, insecureDev: true, log: () => undefined }),
    ).rejects.toThrow('PORT must be an integer from 0 to 65535, got "http"; unset it to use 50051');
  });

  it("says which address it could not listen on", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const { port } = blocker.address() as { port: number };
    try {
      await expect(serveCapability(cap, { port, insecureDev: true, log: () => undefined })).rejects.toThrow(
        `capability p could not listen on 127.0.0.1:${port}: `,
      );
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it("prefers the port option over PORT", async () => {
    const server = await serveCapability(cap, { port: 0, env: { PORT: "1" }, insecureDev: true, log: () => undefined });
    try {
      expect(server.address).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(server.address).not.toBe("127.0.0.1:1");
    } finally {
      await server.close();
    }
  });
});
