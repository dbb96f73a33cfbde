import { Box, Text } from "ink";
import type { Banner as BannerState } from "../state/types.js";

const STYLE = {
  info: { color: "cyan", icon: "ℹ" },
  warn: { color: "yellow", icon: "⚠" },
  error: { color: "red", icon: "✗" },
} as const;

/** A one-line message: what happened and what to do. Never a stack trace. */
export function Banner({ banner, width }: { banner: BannerState; width: number }) {
  const s = STYLE[banner.level];
  const text = banner.text.split("\n")[0] ?? "";
  return (
    <Box width={width} paddingX={1}>
      <Text color={s.color} wrap="truncate-end">{`${s.icon} ${text}`}</Text>
    </Box>
  );
}
