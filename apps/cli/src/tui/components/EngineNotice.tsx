import { Box, Text } from "ink";

/** The running Engine started with another setup than this chat's: what differs and how to restart it. */
export function EngineNotice({ lines, width }: { lines: string[]; width: number }) {
  const [head = "", ...rest] = lines;
  return (
    // No side borders: a long command wraps without box characters in it, and copies whole.
    <Box
      flexDirection="column"
      borderStyle="round"
      borderColor="yellow"
      borderLeft={false}
      borderRight={false}
      paddingX={1}
      width={width}
    >
      <Text color="yellow" bold>{`⚠ ${head}`}</Text>
      {rest.map((line, i) => (
        <Text key={i}>{line}</Text>
      ))}
      <Text dimColor>Or type /restart here.</Text>
    </Box>
  );
}
