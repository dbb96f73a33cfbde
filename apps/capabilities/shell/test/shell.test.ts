import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CappedOutput, createShellCapability, manifestPath, runCommand } from "@palisade/capability-shell";
import { manifestTools, serveForTest as start } from "@palisade/capability-sdk/testing";
import type { Harness } from "@palisade/capability-sdk/testing";

let h: Harness;
let ws: string;
const call = (args: unknown) => h.invoke("execute_command", args, { workspace: ws });

/** Running (a killed process may linger as a zombie until init reaps it: that counts as dead). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

async function waitDead(pid: number, ms = 3000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

beforeAll(async () => {
  h = await start(createShellCapability());
  ws = await realpath(await mkdtemp(path.join(tmpdir(), "palisade-shell-")));
  await mkdir(path.join(ws, "sub"));
});
afterAll(async () => {
  await h.stop();
  await rm(ws, { recursive: true, force: true });
});

describe("execute_command", () => {
  it("runs in the workspace and returns exit code and combined output", async () => {
    const { result, error } = await call({ command: "pwd; echo out; echo err >&2; exit 3" });
    expect(error).toBe("");
    expect(result).toMatchObject({ exit_code: 3, cwd: "." });
    expect(result.output).toBe(`${ws}\nout\nerr\n`);
    expect((await call({ command: "pwd", cwd: "sub" })).result.output).toBe(`${path.join(ws, "sub")}\n`);
  });

  it("refuses a cwd outside the workspace or missing", async () => {
    expect((await call({ command: "ls", cwd: ".." })).error).toMatch(/^refused: path ".." climbs out of the workspace/);
    expect((await call({ command: "ls", cwd: "/etc" })).error).toMatch(/^refused: .*absolute path outside/);
    expect((await call({ command: "ls", cwd: "nope" })).error).toMatch(/not an existing directory/);
    expect((await h.invoke("execute_command", { command: "ls" }, {})).error).toMatch(
      /no workspace configured|workspace/,
    );
  });

  it("kills the whole process group on timeout, grandchildren included", async () => {
    const started = Date.now();
    const { result } = await call({
      command: "sh -c 'sleep 300 & echo $! > grandchild.pid; wait' & echo $! > child.pid; wait",
      timeout_ms: 700,
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result).toMatchObject({ timed_out: true, exit_code: null });
    expect(String(result.note)).toMatch(/did not finish within 700 ms and was killed with its process group/);
    const grandchild = Number(await readFile(path.join(ws, "grandchild.pid"), "utf8"));
    const child = Number(await readFile(path.join(ws, "child.pid"), "utf8"));
    expect(grandchild).toBeGreaterThan(0);
    expect(await waitDead(child)).toBe(true);
    expect(await waitDead(grandchild)).toBe(true);
  });

  it("ends background processes the command left behind", async () => {
    const { result } = await call({ command: "sleep 300 & echo $! > bg.pid; echo started" });
    expect(result).toMatchObject({ exit_code: 0, output: "started\n" });
    expect(await waitDead(Number(await readFile(path.join(ws, "bg.pid"), "utf8")))).toBe(true);
  });

  it("caps output at 64 KiB keeping head and tail, with a note", async () => {
    const { result } = await call({ command: "seq 1 100000" });
    const out = String(result.output);
    expect(result.truncated).toBe(true);
    expect(Buffer.byteLength(out)).toBeLessThan(64 * 1024 + 200);
    expect(out.startsWith("1\n2\n3\n")).toBe(true);
    expect(out.endsWith("99999\n100000\n")).toBe(true);
    expect(out).toMatch(/\[\.\.\. output cut: \d+ bytes omitted of 588895 \.\.\.\]/);
    expect(String(result.note)).toMatch(/output was 588895 bytes/);
  });

  it("streams output lines as they come, then the exit status", async () => {
    const arrivals: { text: string; at: number }[] = [];
    const started = Date.now();
    const enc = new TextEncoder();
    for await (const chunk of h.client.streamInvoke({
      toolName: "execute_command",
      argsJson: enc.encode(JSON.stringify({ command: "for i in 1 2 3; do echo line$i; sleep 0.3; done; exit 4" })),
      configJson: enc.encode(JSON.stringify({ workspace: ws })),
    })) {
      if (chunk.data.byteLength > 0)
        arrivals.push({ text: new TextDecoder().decode(chunk.data), at: Date.now() - started });
      expect(chunk.error).toBe("");
    }
    const texts = arrivals.map((a) => a.text);
    expect(texts.slice(0, 3)).toEqual(["line1\n", "line2\n", "line3\n"]);
    expect(texts[3]).toMatch(/^\n\[exit 4\] \{"exit_code":4/);
    // line1 arrived well before the command ended (~0.9 s): it was streamed, not buffered.
    expect((arrivals[3]?.at ?? 0) - (arrivals[0]?.at ?? 0)).toBeGreaterThan(500);
  });

  it("stops the command when the call is cancelled", async () => {
    const controller = new AbortController();
    const pending = runCommand("sleep 300 & echo $! > cancel.pid; wait", { cwd: ws, signal: controller.signal });
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    const result = await pending;
    expect(result.cancelled).toBe(true);
    expect(await waitDead(Number(await readFile(path.join(ws, "cancel.pid"), "utf8")))).toBe(true);
  });
});

describe("CappedOutput", () => {
  it("keeps everything under the cap and head+tail over it", () => {
    const small = new CappedOutput(16);
    small.push(Buffer.from("0123456789"));
    expect(small.text()).toBe("0123456789");
    const big = new CappedOutput(16);
    for (const c of ["abcdefgh", "ijklmnop", "qrstuvwx"]) big.push(Buffer.from(c));
    expect(big.truncated).toBe(true);
    expect(big.text()).toBe("abcdefghijkl\n[... output cut: 8 bytes omitted of 24 ...]\nuvwx");
  });
});

describe("manifest.yaml", () => {
  it("declares the same tool as the code, asked before running", async () => {
    const { manifest, tools } = await manifestTools(manifestPath);
    expect(manifest).toMatchObject({ id: "shell", class: "environment", filesystem: "workspace" });
    const cap = createShellCapability();
    // A tool that streams in the code declares `streaming` (the Engine then uses StreamInvoke).
    expect(tools).toEqual(
      cap.tools.map((t) => ({
        name: t.name,
        description: t.description,
        input_schema: t.inputSchema,
        recommended_policy: "ask",
        ...(t.stream ? { streaming: true } : {}),
        semantics: { kind: "shell", commands: ["command"], paths: { cwd: "exec" } },
      })),
    );
  });
});
