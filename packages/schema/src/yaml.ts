// YAML text to data, keeping the document so that any field path can be traced back to the
// line and column where the user wrote it.
import { isMap, isScalar, isSeq, LineCounter, parseDocument, visit } from "yaml";
import type { Document, Node } from "yaml";

/** 1-based, as editors count. */
export interface Position {
  line: number;
  col: number;
}

/** A path into the data: mapping keys and list indexes, as ajv's instancePath splits into. */
export type DataPath = readonly (string | number)[];

export interface YamlSyntaxProblem extends Position {
  message: string;
}

export interface YamlFile {
  /** The document as plain data (`undefined` for an empty file). */
  data: unknown;
  /** Syntax errors (duplicate keys included), and warnings when asked; with any error `data` is undefined. */
  errors: YamlSyntaxProblem[];
  /**
   * Where the value at `path` is written; with `key`, where its key is (an unknown key is
   * reported at the key). A path that does not exist (a missing field) gives its nearest
   * written parent.
   */
  locate: (path: DataPath, key?: boolean) => Position | undefined;
}

export function readYaml(text: string, options: { warningsAreErrors?: boolean } = {}): YamlFile {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const errors = [...doc.errors, ...(options.warningsAreErrors === true ? doc.warnings : [])].map((e) => ({
    ...lc.linePos(e.pos[0]),
    message: e.message.split("\n")[0] ?? e.code,
  }));
  // An alias without its anchor is not a parse error to the yaml package: toJS() throws. It is
  // the file's mistake, reported at the alias like any other.
  let broken = doc.errors.length > 0;
  if (!broken)
    visit(doc, {
      Alias(_key, node) {
        if (node.resolve(doc) !== undefined) return;
        broken = true;
        errors.push({
          ...lc.linePos(node.range?.[0] ?? 0),
          message: `*${node.source} names no anchor: define &${node.source} above it, or write the value`,
        });
      },
    });
  return {
    data: broken ? undefined : (doc.toJS() as unknown),
    errors,
    locate: (path, key = false) => locate(doc, lc, path, key),
  };
}

function locate(doc: Document, lc: LineCounter, path: DataPath, key: boolean): Position | undefined {
  let node: unknown = doc.contents;
  let at: Node | undefined = isNode(node) ? node : undefined;
  for (let i = 0; i < path.length; i++) {
    const part = path[i];
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(part));
      if (pair === undefined) break;
      if (last && key && isNode(pair.key)) {
        at = pair.key;
        break;
      }
      node = pair.value;
    } else if (isSeq(node) && typeof part === "number") {
      node = node.items[part];
    } else if (isSeq(node) && /^\d+$/.test(String(part))) {
      node = node.items[Number(part)];
    } else break;
    if (!isNode(node)) break;
    at = node;
  }
  const offset = at?.range?.[0];
  return offset === undefined ? undefined : lc.linePos(offset);
}

function isNode(v: unknown): v is Node {
  return typeof v === "object" && v !== null && "range" in v;
}
