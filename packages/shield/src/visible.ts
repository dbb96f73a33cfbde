/**
 * Text for a person to read, with every character that a terminal could interpret or hide made
 * visible instead: C0 controls (ESC starts ANSI sequences), DEL, C1 controls (U+009B is a CSI on
 * its own), bidi overrides and isolates, zero-width characters, line and paragraph separators.
 * Newlines and tabs stay when `keepLines`. Approval prompts and Shield reasons go through it.
 */
const HIDDEN =
  // eslint-disable-next-line no-control-regex -- control characters are what this escapes
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\u{e0000}-\u{e007f}]/u;
const HIDDEN_ALL = new RegExp(HIDDEN.source, "gu");
const HIDDEN_WITH_LINES =
  // eslint-disable-next-line no-control-regex -- control characters are what this escapes
  /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\u{e0000}-\u{e007f}]/gu;

function escape(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  if (code === 0x1b) return "\\e";
  if (code === 0x0a) return "\\n";
  if (code === 0x0d) return "\\r";
  if (code === 0x09) return "\\t";
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

export function visible(text: string, keepLines = true): string {
  if (keepLines) return HIDDEN.test(text) ? text.replace(HIDDEN_ALL, escape) : text;
  return text.replace(HIDDEN_WITH_LINES, escape);
}

/**
 * Tool arguments as JSON safe to show: valid JSON stays valid JSON with the same value (hidden
 * characters become `\uXXXX` escapes); anything else is shown with `visible`.
 */
export function visibleJson(argumentsJson: string): string {
  // not HIDDEN_WITH_LINES.test: a global regex's test() starts where the previous match ended
  if (!HIDDEN.test(argumentsJson)) return argumentsJson;
  let value: unknown;
  try {
    value = JSON.parse(argumentsJson);
  } catch {
    return visible(argumentsJson);
  }
  // JSON.stringify escapes C0 controls itself; the rest become \uXXXX (UTF-16 units, as JSON wants)
  return (JSON.stringify(value) ?? "null").replace(HIDDEN_WITH_LINES, (c) =>
    Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`).join(""),
  );
}
