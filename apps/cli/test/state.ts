import { initialState, update } from "../src/tui/state/reducer.js";
import type { Key } from "../src/tui/state/key.js";
import type { Action, ChatState, Effect } from "../src/tui/state/types.js";
import type { PipelineEvent } from "@palisade/protocol/pipeline";

export const T0 = 1_700_000_000_000;

export function fresh(over: Partial<ChatState> = {}): ChatState {
  return { ...initialState({ now: T0, columns: 100, rows: 30, model: "gpt-test", connection: "connected" }), ...over };
}

/** Runs actions through the reducer, collecting effects. */
export function run(state: ChatState, actions: Action[]): { state: ChatState; effects: Effect[] } {
  let s = state;
  const effects: Effect[] = [];
  for (const a of actions) {
    const u = update(s, a);
    s = u.state;
    effects.push(...u.effects);
  }
  return { state: s, effects };
}

export const key = (input: string, flags: Partial<Key> = {}): Action => ({ type: "key", key: { input, ...flags } });
export const type = (text: string): Action[] => [...text].map((c) => key(c));
export const enter: Action = key("\r", { return: true });
export const esc: Action = key("", { escape: true });
export const ctrl = (c: string): Action => key(c, { ctrl: true });
export const ev = (event: PipelineEvent): Action => ({ type: "event", event });
export const at = (now: number): Action => ({ type: "tick", now });

/** State after typing `text` and pressing Enter (a turn is running). */
export function sent(text = "hello", over: Partial<ChatState> = {}): { state: ChatState; effects: Effect[] } {
  return run(fresh(over), [...type(text), enter]);
}
