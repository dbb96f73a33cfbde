// What the turn pipeline needs from the Engine, gathered in one object.
import type { AgentLink } from "../agent/link.js";
import type { CallEnv } from "../calls/index.js";
import type { TitleWriter } from "../history/titles.js";
import type { EngineStore } from "../ports.js";

export interface TurnEnv extends CallEnv {
  link: AgentLink;
  store: EngineStore;
  /** Automatic session titles after the first turn. */
  titles?: TitleWriter;
}
