/**
 * A tool call as a person deciding about it reads it: every argument whole (`key=value`, strings
 * with spaces quoted as JSON), wrapped to the terminal's width, never cut. Only a file write's
 * long content, shown as a diff beside it, is summarized.
 */

function valueText(v: unknown): string {
  if (typeof v === "string") return /[\s="\\]/.test(v) || v === "" ? JSON.stringify(v) : v;
  return JSON.stringify(v) ?? String(v);
}

/**
 * The arguments as `key=value` words, in the order given. With `summarizeOver`, a string value
 * longer than that is replaced by its length (the caller shows it another way, e.g. as a diff).
 */
export function callArgs(argumentsJson: string, summarizeOver?: number): string {
  if (!argumentsJson) return "";
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsJson);
  } catch {
    return argumentsJson;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return valueText(parsed);
  return Object.entries(parsed as Record<string, unknown>)
    .map(
      ([k, v]) =>
        `${k}=${summarizeOver !== undefined && typeof v === "string" && v.length > summarizeOver ? `<${v.length} characters, shown below>` : valueText(v)}`,
    )
    .join(" ");
}

/**
 * `text` in lines of at most `width` characters (code points), broken at spaces where it can
 * and inside a word longer than a line; continuation lines start with `indent`. Nothing is dropped.
 */
export function wrapText(text: string, width: number, indent = "    "): string[] {
  const max = Math.max(20, width);
  const out: string[] = [];
  const size = (s: string): number => [...s].length;
  for (const para of text.split("\n")) {
    let line = "";
    let first = true;
    const room = (): number => max - (first ? 0 : size(indent));
    const flush = (): void => {
      out.push(`${first ? "" : indent}${line}`.trimEnd());
      first = false;
      line = "";
    };
    // each word keeps its trailing space
    for (const word of para.split(/(?<= )/)) {
      let chars = [...word];
      while (chars.length > 0) {
        const need = size(chars.join("").trimEnd());
        const used = size(line);
        if (used + need <= room()) {
          line += chars.join("");
          chars = [];
        } else if (used > 0 && need <= room()) {
          flush();
        } else {
          const take = room() - used;
          if (take > 0) {
            line += chars.slice(0, take).join("");
            chars = chars.slice(take);
          }
          flush();
        }
      }
    }
    out.push(`${first ? "" : indent}${line}`.trimEnd());
  }
  return out;
}
