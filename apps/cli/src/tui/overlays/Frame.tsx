import type { ReactNode } from "react";
import { Box, Text } from "ink";

/** A titled full-width panel with a key hint at the bottom (each one line, cut to the width). */
export function Frame({
  title,
  hint,
  width,
  children,
}: {
  title: string;
  hint: string;
  width: number;
  children: ReactNode;
}) {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1} width={width}>
      <Text bold color="cyan" wrap="truncate-end">
        {title}
      </Text>
      {children}
      <Text dimColor wrap="truncate-end">
        {hint}
      </Text>
    </Box>
  );
}
