import { Box, Text } from "ink";
import type { ChatState } from "../state/types.js";
import { formatTokens } from "./format.js";

const CONNECTION = {
  connecting: { icon: "○", color: "yellow", text: "connecting" },
  connected: { icon: "●", color: "green", text: "connected" },
  reconnecting: { icon: "◌", color: "yellow", text: "reconnecting" },
  offline: { icon: "○", color: "red", text: "offline" },
} as const;

const SPIN = ["◐", "◓", "◑", "◒"];

/** Model · session title · OTR badge · tokens · connection state (and the running turn). */
export function StatusLine({ state }: { state: ChatState }) {
  const c = CONNECTION[state.connection];
  const model = state.modelOverride || state.model || "default model";
  const title = state.sessionTitle || (state.sessionId ? state.sessionId.slice(0, 8) : "new session");
  const t = state.turn;
  return (
    <Box width={state.columns} paddingX={1}>
      {t ? (
        <Text color="cyan">
          {`${SPIN[Math.floor(state.now / 250) % SPIN.length] ?? "◐"} ${t.cancelling ? "cancelling" : "working"} ${Math.max(0, Math.floor((state.now - t.startedAt) / 1000))}s · Esc cancels  `}
        </Text>
      ) : null}
      <Text bold>{model}</Text>
      <Text dimColor>{" · "}</Text>
      <Text>{title.length > 40 ? `${title.slice(0, 39)}…` : title}</Text>
      {state.otr ? <Text backgroundColor="yellow" color="black" bold>{" OTR "}</Text> : null}
      {state.demo ? <Text backgroundColor="magenta" color="white" bold>{" DEMO · scripted model "}</Text> : null}
      <Box flexGrow={1} />
      <Text dimColor>{`${formatTokens(state.tokens.input)} in · ${formatTokens(state.tokens.output)} out  `}</Text>
      <Text color={c.color}>{`${c.icon} ${c.text}`}</Text>
    </Box>
  );
}
