import { Box, Text } from "ink";
import type { ChatState } from "../state/types.js";
import { formatTokens } from "./format.js";
import { statusParts } from "./status-parts.js";

const CONNECTION = {
  connecting: { icon: "○", color: "yellow", text: "connecting" },
  connected: { icon: "●", color: "green", text: "connected" },
  reconnecting: { icon: "◌", color: "yellow", text: "reconnecting" },
  offline: { icon: "○", color: "red", text: "offline" },
} as const;

const SPIN = ["◐", "◓", "◑", "◒"];

/**
 * Model · session title · OTR badge · tokens · connection state (and the running turn), on one
 * row at any width: what does not fit is shortened or left out (statusParts), never wrapped.
 */
export function StatusLine({ state }: { state: ChatState }) {
  const c = CONNECTION[state.connection];
  const t = state.turn;
  const p = statusParts({
    width: Math.max(10, state.columns - 2),
    turn: t
      ? {
          spinner: SPIN[Math.floor(state.now / 250) % SPIN.length] ?? "◐",
          verb: t.cancelling ? "cancelling" : "working",
          seconds: Math.max(0, Math.floor((state.now - t.startedAt) / 1000)),
        }
      : undefined,
    model: state.modelOverride || state.model || "default model",
    title: state.sessionTitle || (state.sessionId ? state.sessionId.slice(0, 8) : "new session"),
    otr: state.otr,
    demo: state.demo,
    tokens: `${formatTokens(state.tokens.input)} in · ${formatTokens(state.tokens.output)} out`,
    connection: `${c.icon} ${c.text}`,
  });
  return (
    <Box width={state.columns} paddingX={1}>
      {p.turn ? <Text color="cyan">{p.turn}</Text> : null}
      {p.model ? <Text bold>{p.model}</Text> : null}
      {p.title ? <Text dimColor>{" · "}</Text> : null}
      {p.title ? <Text>{p.title}</Text> : null}
      {p.otr ? (
        <Text backgroundColor="yellow" color="black" bold>
          {p.otr}
        </Text>
      ) : null}
      {p.demo ? (
        <Text backgroundColor="magenta" color="white" bold>
          {p.demo}
        </Text>
      ) : null}
      <Box flexGrow={1} />
      {p.tokens ? <Text dimColor>{p.tokens}</Text> : null}
      <Text color={c.color} wrap="truncate-end">
        {p.connection}
      </Text>
    </Box>
  );
}
