import { common, createLowlight } from "lowlight";

/** A run of code text with the color its syntax class gets. */
export interface CodeSpan {
  text: string;
  color?: string | undefined;
  bold?: boolean | undefined;
  dim?: boolean | undefined;
}

const lowlight = createLowlight(common);

const COLORS: Record<string, Omit<CodeSpan, "text">> = {
  keyword: { color: "magenta" },
  built_in: { color: "cyan" },
  type: { color: "cyan" },
  literal: { color: "blue" },
  number: { color: "blue" },
  string: { color: "green" },
  regexp: { color: "red" },
  comment: { dim: true },
  doctag: { dim: true },
  meta: { color: "gray" },
  title: { color: "yellow" },
  "title.function": { color: "yellow" },
  "title.class": { color: "yellow", bold: true },
  attr: { color: "yellow" },
  attribute: { color: "yellow" },
  variable: { color: "red" },
  params: {},
  symbol: { color: "blue" },
  tag: { color: "red" },
  name: { color: "red" },
  section: { color: "yellow", bold: true },
  bullet: { color: "cyan" },
  addition: { color: "green" },
  deletion: { color: "red" },
};

interface HastNode {
  type: string;
  value?: string;
  tagName?: string;
  properties?: { className?: unknown };
  children?: HastNode[];
}

function styleFor(className: unknown): Omit<CodeSpan, "text"> | undefined {
  const classes = Array.isArray(className) ? (className as string[]) : [];
  for (const c of classes) {
    const name = c.replace(/^hljs-/, "");
    const style = COLORS[name] ?? COLORS[name.split(".")[0] ?? ""] ?? COLORS[name.replace(/_$/, "")];
    if (style) return style;
  }
  return undefined;
}

function walk(node: HastNode, inherited: Omit<CodeSpan, "text">, out: CodeSpan[]): void {
  if (node.type === "text") {
    out.push({ text: node.value ?? "", ...inherited });
    return;
  }
  const own = node.type === "element" ? styleFor(node.properties?.className) : undefined;
  for (const child of node.children ?? []) walk(child, own ?? inherited, out);
}

/** Splits code into colored spans; unknown languages are highlighted by auto-detection when short. */
export function highlightCode(code: string, lang: string | undefined): CodeSpan[] {
  try {
    const language = lang?.trim().split(/\s+/)[0]?.toLowerCase();
    let tree: HastNode;
    if (language && lowlight.registered(language)) tree = lowlight.highlight(language, code);
    else if (!language && code.length < 4000) tree = lowlight.highlightAuto(code);
    else return [{ text: code }];
    const out: CodeSpan[] = [];
    walk(tree, {}, out);
    // Auto-detection that recognizes no language returns an empty tree: the code stays plain.
    return out.map((s) => s.text).join("") === code ? out : [{ text: code }];
  } catch {
    return [{ text: code }];
  }
}

/** Groups spans into lines (for rendering one <Text> per line). */
export function spansByLine(spans: CodeSpan[]): CodeSpan[][] {
  const lines: CodeSpan[][] = [[]];
  for (const span of spans) {
    const parts = span.text.split("\n");
    parts.forEach((part, i) => {
      if (i > 0) lines.push([]);
      if (part) (lines[lines.length - 1] as CodeSpan[]).push({ ...span, text: part });
    });
  }
  return lines;
}
