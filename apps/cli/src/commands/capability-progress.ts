// What `capability list` is starting, on stderr: "starting files, shell … (3 of 5 up)". The host
// reports each capability's state as a "capability <id>: <state>" log line; this follows those lines.
import type { Writable } from "node:stream";
import { println } from "../cli/io.js";

const SETTLED = new Set(["ready", "failed", "not_ready", "stopped"]);
const STATUS = /^capability ([^:\s]+): (\w+)/;

export interface StartProgress {
  /** The ids about to start. */
  starting: (ids: string[]) => void;
  /** One host log line. */
  line: (text: string) => void;
  /** Starting is over: how many came up, and how long it took. */
  done: () => void;
}

export function startProgress(out: Writable): StartProgress {
  const state = new Map<string, string | undefined>();
  let since = Date.now();
  const waiting = (): string[] => [...state].filter(([, s]) => s === undefined || !SETTLED.has(s)).map(([id]) => id);
  const report = (): void => {
    const left = waiting();
    if (left.length > 0)
      println(out, `starting ${left.join(", ")} … (${state.size - left.length} of ${state.size} done)`);
  };
  return {
    starting: (ids) => {
      since = Date.now();
      for (const id of ids) state.set(id, undefined);
      report();
    },
    line: (text) => {
      const m = STATUS.exec(text);
      const id = m?.[1];
      if (!id || !m[2] || !state.has(id) || state.get(id) === m[2]) return;
      const wasSettled = SETTLED.has(state.get(id) ?? "");
      state.set(id, m[2]);
      if (!wasSettled && SETTLED.has(m[2])) report();
    },
    done: () => {
      if (state.size === 0) return;
      const up = [...state.values()].filter((s) => s === "ready").length;
      println(
        out,
        `started ${state.size} capabilit${state.size === 1 ? "y" : "ies"} in ${((Date.now() - since) / 1000).toFixed(1)} s (${up} ready)`,
      );
    },
  };
}
