// The Engine's records as the store tests write them.
import { ZERO_USAGE } from "../../src/history/convert.js";
import type { SessionRecord } from "../../src/ports.js";

/** A new, empty normal session in /w. */
export const sessionRecord = (id: string): SessionRecord => ({
  id,
  title: "",
  mode: "normal",
  workspace: "/w",
  model: "",
  createdAt: 1,
  updatedAt: 1,
  messageCount: 0,
  usage: ZERO_USAGE,
});
