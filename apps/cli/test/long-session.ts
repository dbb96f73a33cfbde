/**
 * A long session whose every word says where it belongs: word k of message i is `m<iii>w<k>`,
 * numbered in reading order. A screen row that is one clean line of one message holds words of
 * one message with consecutive numbers; a line drawn over another mixes messages or skips words.
 */
export interface LongMessage {
  role: "user" | "assistant";
  content: string;
  toolCalls: { callId: string; toolName: string; argumentsJson: string; result: string }[];
}

export function longSession(n: number): LongMessage[] {
  const out: LongMessage[] = [];
  for (let i = 0; i < n; i++) {
    const id = String(i).padStart(3, "0");
    let k = 0;
    const w = (count: number): string => Array.from({ length: count }, () => `m${id}w${k++}`).join(" ");
    if (i % 2 === 0) {
      // long (wraps several times) and multi-line
      out.push({ role: "user", content: `${w(40)}\n${w(3)}\n${w(25)}`, toolCalls: [] });
    } else {
      const toolCalls =
        i % 4 === 1
          ? [
              {
                callId: `call${id}`,
                toolName: "files__read_file",
                argumentsJson: JSON.stringify({ p: w(1) }),
                result: w(2),
              },
            ]
          : [];
      // Markdown: a heading, a paragraph that wraps, a list and a code block.
      const content = `## ${w(2)}\n\n${w(30)}\n\n- ${w(3)}\n- ${w(12)}\n\n\`\`\`\n${w(4)}\n${w(2)}\n\`\`\``;
      out.push({ role: "assistant", content, toolCalls });
    }
  }
  return out;
}

const WORD = /m(\d{3})w(\d+)/g;

/** Rows that are not a clean line of one message (see above), with why; [] when all are. */
export function overlappedRows(rows: string[]): string[] {
  const bad: string[] = [];
  for (const row of rows) {
    const words = [...row.matchAll(WORD)].map((m) => ({ msg: m[1], n: Number(m[2]) }));
    for (let j = 1; j < words.length; j++) {
      const a = words[j - 1];
      const b = words[j];
      if (a && b && (a.msg !== b.msg || b.n !== a.n + 1)) {
        bad.push(`${JSON.stringify(row)}: m${a.msg}w${a.n} then m${b.msg}w${b.n}`);
        break;
      }
    }
  }
  return bad;
}

/** The message numbers whose words appear in these rows. */
export function messagesIn(rows: string[]): Set<number> {
  return new Set(rows.flatMap((r) => [...r.matchAll(WORD)].map((m) => Number(m[1]))));
}
