import { Box, Text } from "ink";
import { DECISION_WORD, approvalWords } from "@palisade/shield/words";
import type { ToolCardEntry, ToolPhase } from "../state/types.js";
import { formatBytes, formatMs, keyArgs, prettyJson, truncate } from "./format.js";
import { DiffView } from "./DiffView.js";

const PHASE: Record<ToolPhase, { icon: string; color: string; label: string }> = {
  proposed: { icon: "○", color: "gray", label: "checking" },
  "awaiting-approval": { icon: "?", color: "yellow", label: "waiting for your approval" },
  running: { icon: "◐", color: "cyan", label: "running" },
  done: { icon: "✓", color: "green", label: "done" },
  failed: { icon: "✗", color: "red", label: "failed" },
  blocked: { icon: "⊘", color: "red", label: "blocked by the Shield" },
  denied: { icon: "✗", color: "yellow", label: "denied" },
  "otr-blocked": { icon: "⊘", color: "yellow", label: "not allowed off the record" },
  cancelled: { icon: "–", color: "gray", label: "cancelled" },
};

const DECISION_COLOR = { allow: "green", block: "red", escalate: "yellow" } as const;

export interface ToolCardProps {
  card: ToolCardEntry;
  width: number;
  expanded?: boolean;
  selected?: boolean;
}

/** One tool call: tool, key arguments, Shield verdict, a file write's diff, progress, result or error, duration, artifacts. */
export function ToolCard({ card, width, expanded = false, selected = false }: ToolCardProps) {
  const p = PHASE[card.phase];
  const inner = Math.max(20, width - 4);
  const v = card.verdict;
  const resultLine = card.error ?? card.resultSummary ?? "";
  const progressLines = card.progress.trimEnd().split("\n").filter(Boolean).slice(-3);
  const sub = card.subAgent ? ` [${card.subAgent}]` : "";
  const label = card.durationMs ? `${p.label} · ${formatMs(card.durationMs)}` : p.label;
  // what the header has left for the arguments: after "? tool [sub]", two spaces, one before the label
  const argsRoom = inner - (p.icon.length + 1 + card.toolName.length + sub.length) - 3 - label.length;
  const args = argsRoom >= 10 ? keyArgs(card.argumentsJson, argsRoom) : "";
  return (
    <Box
      flexDirection="column"
      borderStyle="round"
      borderColor={selected ? "white" : p.color}
      paddingX={1}
      width={Math.max(24, width)}
    >
      {/* One line: the icon and the tool never shrink (a shrunk text wraps and loses its spaces),
          the arguments get the room left, the state label is cut last. */}
      <Box>
        <Box flexShrink={0}>
          <Text>
            <Text color={p.color}>{`${p.icon} `}</Text>
            <Text bold>{card.toolName}</Text>
            {sub ? <Text color="magenta">{sub}</Text> : null}
          </Text>
        </Box>
        {args ? <Text dimColor wrap="truncate-end">{`  ${args}`}</Text> : null}
        <Box flexGrow={1} />
        <Box marginLeft={1}>
          <Text color={p.color} wrap="truncate-end">
            {label}
          </Text>
        </Box>
      </Box>
      {v ? (
        <Text>
          <Text dimColor>shield </Text>
          <Text color={DECISION_COLOR[v.decision]} bold>
            {DECISION_WORD[v.decision]}
          </Text>
          <Text dimColor>{` · tier ${v.tier}`}</Text>
          {v.reason ? <Text dimColor>{` · ${expanded ? v.reason : truncate(v.reason, inner - 24)}`}</Text> : null}
        </Text>
      ) : null}
      {card.approval ? (
        <Text color={card.approval.choice === "deny" ? "yellow" : "green"}>
          {`approval: ${approvalWords(card.approval)}`}
        </Text>
      ) : null}
      {card.summary && card.phase === "running" ? <Text dimColor>{truncate(card.summary, inner)}</Text> : null}
      {card.phase === "running" && progressLines.length ? (
        <Box flexDirection="column">
          {progressLines.map((l, i) => (
            <Text key={i} dimColor>{`│ ${truncate(l, inner - 2)}`}</Text>
          ))}
        </Box>
      ) : null}
      {card.preview ? <DiffView text={card.preview} maxLines={expanded ? 1000 : 8} /> : null}
      {resultLine && !expanded ? (
        <Text
          color={card.error ? "red" : undefined}
        >{`${card.error ? "error: " : "→ "}${truncate(resultLine, inner - 8)}`}</Text>
      ) : null}
      {card.artifacts.length ? (
        <Text color="blue">{`artifacts: ${card.artifacts.map((a) => `${a.filename} (${formatBytes(a.sizeBytes)})`).join(", ")}`}</Text>
      ) : null}
      {expanded ? (
        <Box flexDirection="column" marginTop={1}>
          <Text bold>arguments</Text>
          <Text>{prettyJson(card.argumentsJson) || "(none)"}</Text>
          {card.progress ? (
            <>
              <Text bold>output</Text>
              <Text>{card.progress.trimEnd()}</Text>
            </>
          ) : null}
          <Text bold>{card.error ? "error" : "result"}</Text>
          <Text color={card.error ? "red" : undefined}>{prettyJson(resultLine) || "(none yet)"}</Text>
        </Box>
      ) : null}
    </Box>
  );
}
