import type { Action } from "./state/types.js";

export interface ChatStart {
  /** `--resume`: true to pick from the list, or the session id (prefix) to continue. */
  resume?: true | string | undefined;
}

/** What the chat does first, as the user would type it (`/resume ID`, `/resume` for the list). */
export function startActions(o: ChatStart): Action[] {
  if (o.resume === undefined) return [];
  return [{ type: "submit", text: o.resume === true ? "/resume" : `/resume ${o.resume}` }];
}
