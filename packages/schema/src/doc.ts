// A schema's reference table for the docs: one row per key, with its type, bounds, default and
// description, so that the docs cannot drift from what is validated.

interface DocNode {
  type?: string | readonly string[];
  enum?: readonly unknown[];
  minimum?: number;
  exclusiveMinimum?: number;
  description?: string;
  default?: unknown;
  properties?: Record<string, DocNode>;
  items?: DocNode;
  required?: readonly string[];
}

/** Markdown table of every key under `schema` (nested keys dotted, list items as `[]`). */
export function referenceTable(schema: object): string {
  const rows: string[] = ["| key | type | default | meaning |", "|---|---|---|---|"];
  const walk = (node: DocNode, path: string): void => {
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const at = path ? `${path}.${key}` : key;
      const required = node.required?.includes(key) ? " (required)" : "";
      rows.push(
        `| \`${at}\` | ${cell(typeOf(child) + required)} | ${cell(defaultOf(child))} | ${cell(child.description ?? "")} |`,
      );
      walk(child, at);
      if (child.items !== undefined) walk(child.items, `${at}[]`);
    }
  };
  walk(schema, "");
  return rows.join("\n");
}

function typeOf(node: DocNode): string {
  if (node.enum !== undefined) return node.enum.map((v) => String(v)).join(" \\| ");
  const types = node.type === undefined ? [] : typeof node.type === "string" ? [node.type] : [...node.type];
  const words = types.map((t) => ({ object: "mapping", array: "list" })[t] ?? t);
  const item = node.items !== undefined ? ` of ${typeOf(node.items)}` : "";
  const bounds = [
    node.minimum !== undefined ? `≥ ${node.minimum}` : "",
    node.exclusiveMinimum !== undefined ? `> ${node.exclusiveMinimum}` : "",
  ].filter(Boolean);
  return `${words.join(" or ")}${item}${bounds.length > 0 ? ` ${bounds.join(" ")}` : ""}`;
}

function defaultOf(node: DocNode): string {
  return node.default === undefined ? "" : `\`${JSON.stringify(node.default).replace(/^"(.*)"$/, "$1")}\``;
}

function cell(text: string): string {
  return text.replace(/(?<!\\)\|/g, "\\|").replace(/\n/g, " ");
}
