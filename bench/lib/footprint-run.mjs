// The measuring part of bench/footprint.mjs, shared with its test (test/engine/footprint.test.ts):
// an Engine process with the default configuration, one chat-like session through it, and what
// its process tree holds (from /proc) after start, after the chat and once idle.
import { fork, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "@palisade/protocol";
import { ClientService, PipelineEventType } from "@palisade/protocol/pipeline";
import { ApprovalDecision } from "@palisade/protocol/types";
import { descendants } from "./proc.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The scripted model's chat: load files and shell, read a file, run a command, answer. */
export function chatScript(r) {
  const last = r.messages.at(-1);
  if (last?.role === "user") return { toolCalls: [{ name: "load_tools", arguments: { groups: ["files", "shell"] } }] };
  const called = r.messages.findLast((m) => m.role === "assistant")?.tool_calls?.[0]?.function.name;
  if (called === "load_tools") return { toolCalls: [{ name: "files__read_file", arguments: { path: "x.txt" } }] };
  if (called === "files__read_file")
    return { toolCalls: [{ name: "shell__execute_command", arguments: { command: "echo hi" } }] };
  return { content: "x.txt says x; the shell said hi." };
}

/** RSS and PSS of one process in kB (0 when gone). */
export function memoryOf(pid) {
  try {
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    const pss = Number(/Pss:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0);
    return { rss, pss };
  } catch {
    return { rss: 0, pss: 0 };
  }
}

/** What a process of the Engine's tree is, from its command line. */
function kindOf(pid, enginePid) {
  if (pid === enginePid) return "engine";
  let cmd = "";
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "gone";
  }
  const cap = /apps\/capabilities\/([a-z-]+)\/dist/.exec(cmd)?.[1];
  if (cap) {
    if (/(^|\/)bwrap$/.test(cmd.split(" ")[0] ?? "")) return `${cap} (bwrap)`;
    return cmd.includes("sandbox/dist/init.js") ? `${cap} (sandbox init)` : cap;
  }
  if (cmd.includes("packages/agent/dist"))
    return /(^|\/)bwrap$/.test(cmd.split(" ")[0] ?? "") ? "agent (bwrap)" : "agent";
  if (/(^|\/)bwrap /.test(cmd)) return "bwrap";
  if (cmd.includes("guard.js")) return "guard";
  return cmd.split(" ")[0] ?? "?";
}

/** Processes of the Engine's tree with their memory. */
export function sample(enginePid) {
  const procs = descendants(enginePid)
    .map((pid) => ({ pid, kind: kindOf(pid, enginePid), ...memoryOf(pid) }))
    .filter((p) => p.kind !== "gone");
  return {
    processes: procs.length,
    rssMb: procs.reduce((a, p) => a + p.rss, 0) / 1024,
    pssMb: procs.reduce((a, p) => a + p.pss, 0) / 1024,
    procs,
  };
}

async function chat(address, token) {
  const client = createClient(ClientService, address, { bearerToken: token });
  try {
    let final;
    for await (const ev of client.sendMessage({ content: "What is in x.txt, and what does echo hi print?" })) {
      if (ev.eventType === PipelineEventType.APPROVAL_NEEDED) {
        await client.resolveApproval({
          approvalId: ev.approvalNeeded.approvalId,
          decision: ApprovalDecision.ALLOW_ONCE,
          sessionId: ev.sessionId,
        });
      }
      final = ev;
    }
    if (final?.eventType !== PipelineEventType.RESPONSE_COMPLETE)
      throw new Error(`the chat did not complete: ${JSON.stringify(final?.pipelineError ?? final?.eventType)}`);
  } finally {
    client.close();
  }
}

export async function floor() {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1e9)"], { stdio: "ignore" });
  await sleep(500);
  const m = memoryOf(child.pid);
  child.kill("SIGKILL");
  return { processes: 1, rssMb: m.rss / 1024, pssMb: m.pss / 1024 };
}

/**
 * One Engine from start to stop: samples after start, after the chat and once idle (after
 * `idleStopS`, or `waitS` when idle stop is off). `cpu` (a CpuWindows) spans the Engine's life.
 */
export async function footprintRun(modelURL, idleStopS, waitS, cpu) {
  const engine = fork(join(here, "footprint-engine.mjs"), [modelURL, String(idleStopS)], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    execArgv: [],
  });
  const ready = await new Promise((resolve, reject) => {
    engine.once("message", resolve);
    engine.once("exit", (code) => reject(new Error(`the Engine exited (${code}) before it was ready`)));
  });
  const heap = () =>
    new Promise((resolve) => {
      engine.once("message", (m) => resolve(m.memory));
      engine.send("memory");
    });
  const out = {};
  cpu?.begin();
  try {
    await sleep(300);
    out.started = sample(engine.pid);
    // What ran during the chat: sampled while it goes, since on a loaded machine a capability
    // called early may already be idle-stopped when the chat ends.
    const seen = new Set();
    const watch = setInterval(() => sample(engine.pid).procs.forEach((p) => seen.add(p.kind)), 100);
    try {
      await chat(ready.address, ready.token);
    } finally {
      clearInterval(watch);
    }
    out.chat = sample(engine.pid);
    out.chat.procs.forEach((p) => seen.add(p.kind));
    out.ranDuringChat = [...seen].sort();
    if (idleStopS > 0) {
      // Idle: wait for the capability processes and the Agent to stop (idle time, then their SIGTERM).
      const end = Date.now() + (idleStopS + 20) * 1000;
      await sleep(idleStopS * 1000);
      while (Date.now() < end && sample(engine.pid).procs.some((p) => p.kind !== "engine")) await sleep(200);
    } else {
      await sleep(waitS * 1000);
    }
    out.idle = sample(engine.pid);
    out.engineHeap = await heap();
  } finally {
    cpu?.end();
    const exited = new Promise((r) => engine.once("exit", r));
    engine.disconnect();
    await exited;
  }
  return out;
}
