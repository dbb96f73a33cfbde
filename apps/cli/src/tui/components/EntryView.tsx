import { Box, Text } from "ink";
import type { Entry } from "../state/types.js";
import { Markdown } from "../markdown/Markdown.js";
import { ToolCard } from "./ToolCard.js";
import { formatTokens } from "./format.js";

const NOTICE = { info: "cyan", warn: "yellow", error: "red" } as const;

/** One transcript entry: a user message, assistant Markdown, a tool card, a notice or reasoning. */
export function EntryView({ entry, width }: { entry: Entry; width: number }) {
  switch (entry.kind) {
    case "user":
      return (
        <Box marginTop={1} width={width} paddingX={1}>
          <Text color="cyan" bold>
            {"› "}
          </Text>
          <Text>{entry.text}</Text>
        </Box>
      );
    case "assistant":
      return (
        <Box marginTop={entry.continuation ? 0 : 1} width={width} paddingX={1} flexDirection="row">
          <Text color="green">{entry.continuation ? "  " : entry.subAgent ? "◆ " : "● "}</Text>
          <Box flexDirection="column" flexGrow={1} flexShrink={1}>
            <Markdown text={entry.text} />
            {entry.usage ? (
              <Text
                dimColor
              >{`${formatTokens(entry.usage.input)} in · ${formatTokens(entry.usage.output)} out this turn`}</Text>
            ) : null}
          </Box>
        </Box>
      );
    case "tool":
      return (
        <Box paddingX={1}>
          <ToolCard card={entry} width={Math.min(width - 2, 110)} />
        </Box>
      );
    case "thought":
      return (
        <Box marginTop={1} width={width} paddingX={1} flexDirection="row">
          <Text dimColor>{"✻ "}</Text>
          <Box flexGrow={1} flexShrink={1}>
            <Text dimColor italic wrap="wrap">
              {entry.text.trim()}
            </Text>
          </Box>
        </Box>
      );
    case "notice":
      return (
        <Box width={width} paddingX={1}>
          <Text color={NOTICE[entry.level]}>{`· ${entry.text}`}</Text>
        </Box>
      );
  }
}
