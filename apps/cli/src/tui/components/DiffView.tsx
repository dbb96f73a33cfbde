import { Box, Text } from "ink";

/** The color of one line of a unified diff (or of a new file's "+" lines). */
function colorOf(line: string): { color?: string; dim?: boolean; bold?: boolean } {
  if (line.startsWith("+++ ") || line.startsWith("--- ") || line.startsWith("new file ")) return { bold: true };
  if (line.startsWith("+")) return { color: "green" };
  if (line.startsWith("-")) return { color: "red" };
  if (line.startsWith("@@")) return { color: "cyan" };
  if (line.startsWith("… ") || line.startsWith("\\")) return { dim: true };
  return { dim: true };
}

/**
 * A file write's preview from the Engine (unified diff, or a new file's first lines), colored,
 * each line cut to the width, at most `maxLines` lines and a count of the rest.
 */
export function DiffView({ text, maxLines }: { text: string; maxLines: number }) {
  const lines = text.split("\n");
  // The Engine's own "… N more lines" counts what it did not send.
  const sentMore = /^… (\d+) more lines$/.exec(lines.at(-1) ?? "");
  const body = sentMore ? lines.slice(0, -1) : lines;
  const hidden = Math.max(0, body.length - maxLines) + (sentMore ? Number(sentMore[1]) : 0);
  return (
    <Box flexDirection="column">
      {body.slice(0, maxLines).map((l, i) => {
        const c = colorOf(l);
        return (
          <Text
            key={i}
            wrap="truncate-end"
            {...(c.color ? { color: c.color } : {})}
            dimColor={Boolean(c.dim)}
            bold={Boolean(c.bold)}
          >
            {l || " "}
          </Text>
        );
      })}
      {hidden > 0 ? <Text dimColor>{`… ${hidden} more ${hidden === 1 ? "line" : "lines"}`}</Text> : null}
    </Box>
  );
}
