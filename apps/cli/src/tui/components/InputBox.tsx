import { Box, Text } from "ink";
import type { EditorState } from "../state/types.js";
import { SLASH_COMMANDS } from "../state/commands.js";
import { searchLine } from "../state/history-search.js";

export interface InputBoxProps {
  editor: EditorState;
  active: boolean;
  width: number;
  placeholder?: string;
}

function Line({ text, cursorCol, prefix }: { text: string; cursorCol: number | undefined; prefix: string }) {
  if (cursorCol === undefined) return <Text>{`${prefix}${text}`}</Text>;
  const at = text[cursorCol] ?? " ";
  return (
    <Text>
      {prefix}
      {text.slice(0, cursorCol)}
      <Text inverse>{at}</Text>
      {text.slice(cursorCol + 1)}
    </Text>
  );
}

/** The multi-line prompt with a visible cursor and slash-command candidates. */
export function InputBox({
  editor,
  active,
  width,
  placeholder = "Type a message · /help for commands · Esc cancels a turn",
}: InputBoxProps) {
  const lines = editor.text.split("\n");
  let offset = 0;
  let cursorRow = 0;
  let cursorCol = 0;
  lines.forEach((l, i) => {
    if (editor.cursor >= offset && editor.cursor <= offset + l.length) {
      cursorRow = i;
      cursorCol = editor.cursor - offset;
    }
    offset += l.length + 1;
  });
  const candidates = editor.completions;
  const searching = searchLine(editor);
  if (searching !== undefined) {
    return (
      <Box flexDirection="column" width={width}>
        <Box borderStyle="round" borderColor="yellow" paddingX={1}>
          <Text wrap="truncate-end">{searching}</Text>
        </Box>
        <Text dimColor>{"  Ctrl+R older · Enter take it · Esc back"}</Text>
      </Box>
    );
  }
  return (
    <Box flexDirection="column" width={width}>
      <Box flexDirection="column" borderStyle="round" borderColor={active ? "cyan" : "gray"} paddingX={1}>
        {editor.text === "" ? (
          <Text>
            <Text color="cyan">{"› "}</Text>
            {active ? <Text inverse> </Text> : null}
            <Text dimColor>{placeholder}</Text>
          </Text>
        ) : (
          lines.map((l, i) => (
            <Line
              key={i}
              text={l}
              prefix={i === 0 ? "› " : "  "}
              cursorCol={active && i === cursorRow ? cursorCol : undefined}
            />
          ))
        )}
      </Box>
      {candidates.length ? (
        <Box flexDirection="column" paddingX={2}>
          {candidates.map((c) => {
            const cmd = SLASH_COMMANDS.find((s) => s.name === c);
            return (
              <Text key={c}>
                <Text color="cyan">{`/${c}`}</Text>
                <Text dimColor>{` ${cmd?.args ?? ""}  ${cmd?.help ?? ""}`}</Text>
              </Text>
            );
          })}
        </Box>
      ) : null}
    </Box>
  );
}
