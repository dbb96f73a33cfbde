import { join } from "node:path";
import { render } from "ink";
import { appendInputHistory, loadInputHistory } from "./input-history.js";
import type { CliIo } from "../cli/io.js";
import type { EngineClient, EngineConnection } from "../engine/connect.js";
import { openClient } from "../engine/connect.js";
import { findEngine } from "../engine-address.js";
import type { EngineEndpoint, PalisadePaths } from "../engine-address.js";
import { CliError } from "../cli/errors.js";
import { ChatApp } from "./ChatApp.js";
import { ChatController } from "./controller.js";
import type { EngineLink } from "./controller.js";
import { initialState } from "./state/reducer.js";
import { startActions } from "./start-actions.js";
import type { ChatStart } from "./start-actions.js";

export interface ChatSessionOptions {
  io: CliIo;
  paths: PalisadePaths;
  conn: EngineConnection;
  workspace: string;
  demo: boolean;
  otr: boolean;
  /** `--model`: the model of this chat's messages (as /model NAME). */
  model?: string | undefined;
  /** `--resume [SESSION]`. */
  resume?: ChatStart["resume"];
  /** The running Engine's setup against this chat's: the notice to show first, how to check again, how to restart. */
  setup?: { notice: string[] | undefined; check: () => Promise<string[] | undefined>; restart: () => Promise<string> };
}

/** Whether two discoveries name the same running Engine (same process, address and token). */
function sameEngine(a: EngineEndpoint, b: EngineEndpoint): boolean {
  return (
    a.address === b.address &&
    a.bearerToken === b.bearerToken &&
    a.info.pid === b.info.pid &&
    a.info.startedAt === b.info.startedAt
  );
}

/**
 * A link that re-reads engine.json on reconnect, so a restarted Engine (new pid/port) is found.
 * A health check that timed out on a loaded machine is no reason to drop a connection: while
 * engine.json names the Engine this link is connected to, the connection is kept (gRPC
 * reconnects its transport itself). When another Engine took over, the link switches to it; the
 * channel it leaves is closed once no call on it is in flight (closing a channel fails its calls).
 */
export function discoveryLink(
  paths: PalisadePaths,
  conn: EngineConnection,
  open: (endpoint: EngineEndpoint) => EngineClient = openClient,
): EngineLink {
  let endpoint = conn.endpoint;
  const inFlight = new Map<EngineClient, number>();
  const retired = new Set<EngineClient>();
  const retire = (client: EngineClient): void => {
    if (inFlight.has(client)) retired.add(client);
    else client.close();
  };
  const link: EngineLink = {
    client: conn.client,
    async reconnect() {
      const found = await findEngine(paths);
      if (!found) throw new CliError(`no Engine running for ${paths.dataDir} (${paths.infoFile} names none alive)`);
      if (sameEngine(found, endpoint)) return link.client;
      const next = open(found);
      const previous = link.client;
      link.client = next;
      endpoint = found;
      retire(previous);
      return next;
    },
    hold(client) {
      inFlight.set(client, (inFlight.get(client) ?? 0) + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (inFlight.get(client) ?? 1) - 1;
        if (left > 0) return void inFlight.set(client, left);
        inFlight.delete(client);
        if (retired.delete(client)) client.close();
      };
    },
    close: () => {
      for (const client of retired) client.close();
      retired.clear();
      link.client.close();
    },
  };
  return link;
}

/** Runs the chat TUI until the user leaves. */
export async function runChatTui(o: ChatSessionOptions): Promise<void> {
  const stdout = o.io.stdout as NodeJS.WriteStream;
  const historyFile = join(o.paths.dataDir, "chat-history.jsonl");
  const state = initialState({
    history: await loadInputHistory(historyFile),
    now: Date.now(),
    columns: stdout.columns || 100,
    rows: stdout.rows || 30,
    model: o.conn.status.model,
    demo: o.demo,
    otr: o.otr,
    connection: "connected",
    engineNotice: o.setup?.notice,
  });
  if (o.model) state.modelOverride = o.model;
  let unmount: () => void = () => undefined;
  const controller = new ChatController(discoveryLink(o.paths, o.conn), state, {
    onExit: () => unmount(),
    clearScreen: () => stdout.write("\x1b[2J\x1b[3J\x1b[H"),
    workspace: o.workspace,
    cwd: o.io.cwd,
    remember: (text) => void appendInputHistory(historyFile, text).catch(() => undefined),
    ...(o.setup ? { checkSetup: o.setup.check, restartEngine: o.setup.restart } : {}),
  });
  const app = render(<ChatApp controller={controller} />, {
    stdout,
    stdin: o.io.stdin as NodeJS.ReadStream,
    stderr: o.io.stderr as NodeJS.WriteStream,
    exitOnCtrlC: false,
    // 60 frames/s halves the token-to-frame delay of 30 for about the same CPU (bench/chat-render.mjs).
    maxFps: 60,
  });
  unmount = () => app.unmount();
  controller.start();
  for (const action of startActions({ resume: o.resume })) controller.dispatch(action);
  try {
    await app.waitUntilExit();
  } finally {
    await controller.endOffTheRecord();
    controller.close();
  }
}
