// The footprint goal as a test, with bench/footprint.mjs's own measuring code: an Engine process
// with the default configuration, one chat through it (files and shell called), then idle. Once its
// local capabilities have stopped, the Engine's process tree (read from /proc) is the Engine and the
// Agent: at most 3 processes. Memory is reported by the benchmark, not asserted here (it depends on
// the machine).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
// @ts-expect-error: the benchmark's plain JavaScript helpers have no type declarations
import { chatScript, footprintRun } from "../../bench/lib/footprint-run.mjs";
import { built } from "./helpers.js";

interface Sample {
  processes: number;
  rssMb: number;
  procs: { kind: string; rss: number }[];
}
type Run = (
  url: string,
  idleStopS: number,
  waitS: number,
) => Promise<{
  started: Sample;
  chat: Sample;
  ranDuringChat: string[];
  idle: Sample;
  engineHeap: Record<string, number>;
}>;

const skip = built();
let model: ScriptedServer;
beforeAll(async () => {
  model = await startScriptedServer({ fallback: chatScript as never });
});
afterAll(async () => {
  await model?.close();
});

describe.skipIf(skip)("footprint", () => {
  it("after one chat and the idle time, the Engine's tree is the Engine alone (<= 3 processes): capabilities and the Agent stopped", async () => {
    const r = await (footprintRun as Run)(model.baseURL, 2, 3);
    const kinds = (s: Sample): string[] => s.procs.map((p) => p.kind).sort();
    // Nothing started before it was called; files and shell ran for the chat. The Agent runs under
    // bubblewrap: its launcher and the sandbox's init are the two "agent (bwrap)" processes.
    expect(kinds(r.started)).toEqual(["agent", "agent (bwrap)", "agent (bwrap)", "engine"]);
    expect(r.ranDuringChat).toEqual(expect.arrayContaining(["files", "shell"]));
    expect(kinds(r.idle)).toEqual(["engine"]);
    expect(r.idle.processes).toBeLessThanOrEqual(3);
    const each = (s: Sample): string => s.procs.map((p) => `${p.kind} ${(p.rss / 1024).toFixed(0)}`).join(", ");
    const heap = Object.entries(r.engineHeap)
      .map(([k, v]) => `${k} ${(v / 1048576).toFixed(0)}`)
      .join(", ");
    console.log(
      `footprint (MB): started ${r.started.processes} processes ${r.started.rssMb.toFixed(0)}; after the chat ${r.chat.processes} / ${r.chat.rssMb.toFixed(0)} (${each(r.chat)}); idle ${r.idle.processes} / ${r.idle.rssMb.toFixed(0)} (${each(r.idle)}); Engine heap: ${heap}`,
    );
  }, 120_000);
});
