import { Box, Text } from "ink";
import type { ChatState, InfoOverlay } from "../state/types.js";
import { KEY_HELP, SLASH_COMMANDS } from "../state/commands.js";
import { statusLines } from "../../format/status.js";
import { toolCards } from "../state/overlays.js";
import { agentElapsedMs } from "../state/events.js";
import { ToolCard } from "../components/ToolCard.js";
import { EntryView } from "../components/EntryView.js";
import { formatMs, truncate } from "../components/format.js";
import { Frame } from "./Frame.js";

export function HelpPanel({ width }: { width: number }) {
  const w = Math.max(...SLASH_COMMANDS.map((c) => c.name.length + c.args.length + 2));
  const k = Math.max(...KEY_HELP.map(([key]) => key.length));
  return (
    <Frame title="Commands" hint="Esc close" width={width}>
      {SLASH_COMMANDS.map((c) => (
        <Text key={c.name}>
          <Text color="cyan">{`/${c.name} ${c.args}`.padEnd(w + 1)}</Text>
          <Text>{` ${c.help}`}</Text>
        </Text>
      ))}
      <Text bold>Keys</Text>
      {KEY_HELP.map(([key, what]) => (
        <Text key={key}>
          <Text color="cyan">{key.padEnd(k)}</Text>
          {`  ${what}`}
        </Text>
      ))}
    </Frame>
  );
}

export function StatusPanel({ o, width }: { o: InfoOverlay; width: number }) {
  return (
    <Frame title="Engine status" hint="Esc close" width={width}>
      {o.status ? (
        statusLines(o.status, o.configPresent ?? true).map((l, i) => <Text key={i}>{l}</Text>)
      ) : (
        <Text dimColor>{o.loading ? "asking the Engine…" : "no status"}</Text>
      )}
    </Frame>
  );
}

export function ToolsPanel({
  o,
  width,
  height,
  unavailable = [],
}: {
  o: InfoOverlay;
  width: number;
  height: number;
  unavailable?: string[];
}) {
  const tools = o.tools ?? [];
  const sel = tools[o.selected];
  const visible = Math.max(3, height - 7 - (sel?.policyRules.length ? sel.policyRules.length + 2 : 0));
  const start = Math.max(0, Math.min(o.selected - Math.floor(visible / 2), tools.length - visible));
  const POLICY = { allow: "green", ask: "yellow", block: "red" } as Record<string, string>;
  return (
    <Frame
      title={`Tools (${tools.length}) · decisions of the active policy (detectors still check every call)`}
      hint="↑↓ select · Esc close"
      width={width}
    >
      {o.loading ? <Text dimColor>loading…</Text> : null}
      {unavailable.map((l, i) => (
        <Text key={`u${i}`} color="yellow">{`unavailable: ${l}`}</Text>
      ))}
      {tools.slice(start, start + visible).map((t, i) => {
        const rules = t.policyRules.map((r) => `${r.decision} by ${r.ruleId}`).join(", ");
        return (
          <Text key={`${t.capabilityId}-${t.def?.name ?? i}`} inverse={start + i === o.selected} wrap="truncate-end">
            <Text color={POLICY[t.policy] ?? "gray"}>{(t.policy || "?").padEnd(6)}</Text>
            <Text bold>{` ${t.def?.name ?? "?"}`}</Text>
            {rules ? <Text>{`  (${rules})`}</Text> : null}
            <Text dimColor>{`  ${truncate(t.def?.description ?? "", width - 40)}`}</Text>
          </Text>
        );
      })}
      {sel?.policyRules.length ? (
        <Box flexDirection="column" marginTop={1}>
          <Text
            bold
          >{`${sel.def?.name ?? "?"}: ${sel.policy} unless a rule of the active policy matches the call:`}</Text>
          {sel.policyRules.map((r) => (
            <Text key={r.ruleId} wrap="truncate-end">
              <Text color={POLICY[r.decision] ?? "gray"}>{`  ${r.decision.padEnd(6)}`}</Text>
              <Text>{`${r.ruleId}: ${r.description}`}</Text>
            </Text>
          ))}
        </Box>
      ) : null}
    </Frame>
  );
}

const AGENT_COLOR = { running: "cyan", completed: "green", failed: "red", cancelled: "gray" } as const;

export function AgentsPanel({
  state,
  o,
  width,
  height,
}: {
  state: ChatState;
  o: InfoOverlay;
  width: number;
  height: number;
}) {
  const agents = state.subAgents;
  const sel = agents[Math.min(o.selected, agents.length - 1)];
  return (
    <Frame
      title={`Sub-agents (${agents.length})`}
      hint="↑↓ select · Enter show/hide transcript · Esc close"
      width={width}
    >
      {o.loading && agents.length === 0 ? <Text dimColor>loading…</Text> : null}
      {!o.loading && agents.length === 0 ? <Text dimColor>no sub-agents in this session</Text> : null}
      {agents.map((a, i) => (
        <Text key={a.name} inverse={i === o.selected}>
          <Text color={AGENT_COLOR[a.state]}>{a.state.padEnd(10)}</Text>
          <Text bold>{` ${a.name}`}</Text>
          <Text
            dimColor
          >{`  ${a.llmCalls} llm · ${a.toolCalls} tools · ${formatMs(agentElapsedMs(a, state.now))}  ${truncate(a.task, width - 60)}`}</Text>
        </Text>
      ))}
      {o.expanded && sel ? (
        <Box flexDirection="column" height={Math.max(4, height - agents.length - 6)} overflow="hidden" marginTop={1}>
          <Text bold>{`${sel.name}: ${sel.task}`}</Text>
          {sel.entries.map((e) => (
            <EntryView key={e.id} entry={e} width={width - 4} />
          ))}
          {sel.resultExcerpt ? <Text color="green">{`result: ${sel.resultExcerpt}`}</Text> : null}
          {sel.error ? <Text color="red">{`error: ${sel.error}`}</Text> : null}
        </Box>
      ) : null}
    </Frame>
  );
}

export function Inspector({
  state,
  o,
  width,
  height,
}: {
  state: ChatState;
  o: InfoOverlay;
  width: number;
  height: number;
}) {
  const cards = toolCards(state);
  const i = Math.min(o.selected, cards.length - 1);
  const card = cards[i];
  return (
    <Frame
      title={`Tool calls (${cards.length})${card ? ` · ${i + 1}/${cards.length}` : ""}`}
      hint="↑↓ previous/next call · Esc close"
      width={width}
    >
      {card ? (
        <Box height={Math.max(6, height - 4)} overflow="hidden">
          <ToolCard card={card} width={width - 4} expanded />
        </Box>
      ) : (
        <Text dimColor>no tool calls yet</Text>
      )}
    </Frame>
  );
}

/** The strip above the input: this conversation's sub-agents since the last message, live, and how each ended. */
export function SubAgentStrip({ state }: { state: ChatState }) {
  const agents = state.subAgents;
  if (agents.length === 0) return null;
  return (
    <Box flexDirection="column" paddingX={1}>
      {agents.map((a) => (
        <Text key={a.name}>
          <Text color={AGENT_COLOR[a.state]}>{a.state === "running" ? "◆ " : "◇ "}</Text>
          <Text bold>{a.name}</Text>
          <Text
            dimColor
          >{` ${a.state} · ${a.llmCalls} llm · ${a.toolCalls} tools · ${formatMs(agentElapsedMs(a, state.now))} · ${truncate(a.task, Math.max(10, state.columns - 60))}`}</Text>
        </Text>
      ))}
      <Text dimColor>/agents for their transcripts</Text>
    </Box>
  );
}
