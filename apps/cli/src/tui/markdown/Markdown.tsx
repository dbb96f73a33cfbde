import { memo } from "react";
import type { ReactNode } from "react";
import { Box, Text } from "ink";
import { Lexer } from "marked";
import type { Token, Tokens } from "marked";
import { highlightCode, spansByLine } from "./highlight.js";

function inline(tokens: Token[] | undefined, keyPrefix: string): ReactNode[] {
  if (!tokens) return [];
  return tokens.map((t, i) => {
    const key = `${keyPrefix}.${i}`;
    switch (t.type) {
      case "strong":
        return (
          <Text key={key} bold>
            {inline((t as Tokens.Strong).tokens, key)}
          </Text>
        );
      case "em":
        return (
          <Text key={key} italic>
            {inline((t as Tokens.Em).tokens, key)}
          </Text>
        );
      case "del":
        return (
          <Text key={key} strikethrough>
            {inline((t as Tokens.Del).tokens, key)}
          </Text>
        );
      case "codespan":
        return (
          <Text key={key} color="cyan">
            {decode((t as Tokens.Codespan).text)}
          </Text>
        );
      case "link": {
        const l = t as Tokens.Link;
        const label = l.text && l.text !== l.href ? inline(l.tokens, key) : null;
        return (
          <Text key={key}>
            {label ? (
              <Text color="blue" underline>
                {label}
              </Text>
            ) : null}
            <Text color="blue" dimColor={Boolean(label)}>
              {label ? ` (${l.href})` : l.href}
            </Text>
          </Text>
        );
      }
      case "image":
        return (
          <Text key={key} color="blue">
            [image: {(t as Tokens.Image).text || (t as Tokens.Image).href}]
          </Text>
        );
      case "br":
        return <Text key={key}>{"\n"}</Text>;
      case "text": {
        const tt = t as Tokens.Text;
        return tt.tokens ? <Text key={key}>{inline(tt.tokens, key)}</Text> : <Text key={key}>{decode(tt.text)}</Text>;
      }
      case "escape":
        return <Text key={key}>{(t as Tokens.Escape).text}</Text>;
      default:
        return <Text key={key}>{decode((t as { raw: string }).raw)}</Text>;
    }
  });
}

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };
function decode(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39);/g, (m) => ENTITIES[m] ?? m);
}

function CodeBlock({ code, lang }: { code: string; lang: string | undefined }) {
  const lines = spansByLine(highlightCode(code, lang));
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="gray" paddingX={1}>
      {lang ? <Text dimColor>{lang}</Text> : null}
      {lines.map((spans, i) => (
        <Text key={i} wrap="wrap">
          {spans.length === 0
            ? " "
            : spans.map((s, j) => (
                <Text key={j} {...(s.color ? { color: s.color } : {})} bold={Boolean(s.bold)} dimColor={Boolean(s.dim)}>
                  {s.text}
                </Text>
              ))}
        </Text>
      ))}
    </Box>
  );
}

function List({ list, depth, keyPrefix }: { list: Tokens.List; depth: number; keyPrefix: string }) {
  const start = typeof list.start === "number" ? list.start : 1;
  return (
    <Box flexDirection="column">
      {list.items.map((item, i) => {
        const bullet = item.task
          ? item.checked
            ? "[x]"
            : "[ ]"
          : list.ordered
            ? `${start + i}.`
            : depth % 2 === 0
              ? "•"
              : "◦";
        return (
          <Box key={`${keyPrefix}.${i}`} flexDirection="row">
            <Text color="cyan">{`${bullet} `}</Text>
            <Box flexDirection="column" flexGrow={1} flexShrink={1}>
              {blocks(item.tokens, `${keyPrefix}.${i}`, depth + 1, true)}
            </Box>
          </Box>
        );
      })}
    </Box>
  );
}

function Table({ table, keyPrefix }: { table: Tokens.Table; keyPrefix: string }) {
  const cell = (c: Tokens.TableCell): string => decode(c.text);
  const widths = table.header.map((h, i) =>
    Math.max(cell(h).length, ...table.rows.map((r) => (r[i] ? cell(r[i]).length : 0))),
  );
  const row = (cells: Tokens.TableCell[]): string => cells.map((c, i) => cell(c).padEnd(widths[i] ?? 0)).join(" │ ");
  return (
    <Box flexDirection="column">
      <Text bold>{row(table.header)}</Text>
      <Text dimColor>{widths.map((w) => "─".repeat(w)).join("─┼─")}</Text>
      {table.rows.map((r, i) => (
        <Text key={`${keyPrefix}.${i}`}>{row(r)}</Text>
      ))}
    </Box>
  );
}

function blocks(tokens: Token[], keyPrefix: string, depth = 0, tight = false): ReactNode[] {
  const out: ReactNode[] = [];
  tokens.forEach((t, i) => {
    const key = `${keyPrefix}.${i}`;
    switch (t.type) {
      case "space":
        return;
      case "heading": {
        const h = t as Tokens.Heading;
        out.push(
          <Box key={key} marginTop={out.length ? 1 : 0}>
            <Text bold color={h.depth <= 2 ? "cyan" : undefined} underline={h.depth === 1}>
              {inline(h.tokens, key)}
            </Text>
          </Box>,
        );
        return;
      }
      case "paragraph":
        out.push(
          <Box key={key} marginTop={out.length && !tight ? 1 : 0}>
            <Text>{inline((t as Tokens.Paragraph).tokens, key)}</Text>
          </Box>,
        );
        return;
      case "text": {
        const tt = t as Tokens.Text;
        out.push(<Text key={key}>{tt.tokens ? inline(tt.tokens, key) : decode(tt.text)}</Text>);
        return;
      }
      case "code": {
        const c = t as Tokens.Code;
        out.push(
          <Box key={key} marginTop={out.length && !tight ? 1 : 0}>
            <CodeBlock code={c.text} lang={c.lang} />
          </Box>,
        );
        return;
      }
      case "list":
        out.push(
          <Box key={key} marginTop={out.length && !tight ? 1 : 0}>
            <List list={t as Tokens.List} depth={depth} keyPrefix={key} />
          </Box>,
        );
        return;
      case "blockquote":
        out.push(
          <Box
            key={key}
            borderStyle="single"
            borderLeft
            borderRight={false}
            borderTop={false}
            borderBottom={false}
            borderColor="gray"
            paddingLeft={1}
            marginTop={out.length ? 1 : 0}
          >
            <Box flexDirection="column">{blocks((t as Tokens.Blockquote).tokens, key, depth)}</Box>
          </Box>,
        );
        return;
      case "hr":
        out.push(
          <Text key={key} dimColor>
            {"─".repeat(40)}
          </Text>,
        );
        return;
      case "table":
        out.push(
          <Box key={key} marginTop={out.length ? 1 : 0}>
            <Table table={t as Tokens.Table} keyPrefix={key} />
          </Box>,
        );
        return;
      default:
        out.push(<Text key={key}>{decode((t as { raw: string }).raw).trimEnd()}</Text>);
    }
  });
  return out;
}

export function lexMarkdown(text: string): Token[] {
  return Lexer.lex(text, { gfm: true });
}

/** Renders Markdown (headings, lists, emphasis, links, tables, fenced code with highlighting). */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return <Box flexDirection="column">{blocks(lexMarkdown(text), "md")}</Box>;
});
