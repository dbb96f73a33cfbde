// Highlighted snippets built in JS from text the search already read. FTS5's snippet() must
// re-run the MATCH for each hit (one query per hit, and for a prefix term without a prefix index
// a merge of every matching term each time); this follows its algorithm instead: a window of
// SNIPPET_TOKENS tokens holding the most distinct phrases, centred on them, a bonus for starting
// a sentence, matches wrapped in `[` `]`, `…` where text was cut.
import { foldToken } from "./rank.js";
import type { RankPhrase } from "./rank.js";

export const SNIPPET_TOKENS = 12;
const OPEN = "[";
const CLOSE = "]";
const ELLIPSIS = "…";

interface Span {
  start: number;
  end: number;
  token: string;
}
interface Instance {
  phrase: number;
  pos: number;
  len: number;
}

const TOKEN = /[\p{L}\p{N}]+/gu;

function spans(text: string): Span[] {
  const out: Span[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const token = foldToken(m[0]);
    if (token !== "") out.push({ start: m.index, end: m.index + m[0].length, token });
  }
  return out;
}

function instances(doc: Span[], phrases: RankPhrase[]): Instance[] {
  const out: Instance[] = [];
  phrases.forEach((p, phrase) => {
    const n = p.tokens.length;
    if (n === 0) return;
    for (let i = 0; i + n <= doc.length; i++) {
      let ok = true;
      for (let j = 0; j < n && ok; j++) {
        const want = p.tokens[j]!;
        const got = doc[i + j]!.token;
        ok = p.prefix && j === n - 1 ? got.startsWith(want) : got === want;
      }
      if (ok) out.push({ phrase, pos: i, len: n });
    }
  });
  return out.sort((a, b) => a.pos - b.pos || a.phrase - b.phrase);
}

/** Score of the window at `start` (1000 per distinct phrase, 1 per repeat) and its centred start. */
function score(inst: Instance[], start: number, size: number, docSize: number): { score: number; adj: number } {
  const seen = new Set<number>();
  let s = 0;
  let first = -1;
  let last = -1;
  for (const x of inst) {
    if (x.pos < start || x.pos >= start + size) continue;
    s += seen.has(x.phrase) ? 1 : 1000;
    seen.add(x.phrase);
    if (first < 0) first = x.pos;
    last = Math.max(last, x.pos + x.len);
  }
  let adj = first < 0 ? start : first - Math.floor((size - (last - first)) / 2);
  if (adj + size > docSize) adj = docSize - size;
  return { score: s, adj: Math.max(0, adj) };
}

/** Token positions that start a sentence (the first token, and any after `.`, `:`, `!`, `?`). */
function sentenceStarts(text: string, doc: Span[]): number[] {
  const out: number[] = [];
  doc.forEach((t, i) => {
    if (i === 0 || /[.:!?]/.test(text.slice(doc[i - 1]!.end, t.start))) out.push(i);
  });
  return out;
}

interface Best {
  score: number;
  start: number;
  doc: Span[];
  inst: Instance[];
  text: string;
}

function bestOf(text: string, phrases: RankPhrase[], size: number): Best {
  const doc = spans(text);
  const inst = instances(doc, phrases);
  if (doc.length <= size) return { score: score(inst, 0, size, doc.length).score, start: 0, doc, inst, text };
  let best = { score: -1, start: 0 };
  const starts = inst.length > 0 ? sentenceStarts(text, doc) : [];
  for (const x of inst) {
    const s = score(inst, x.pos, size, doc.length);
    if (s.score > best.score) best = { score: s.score, start: s.adj };
    // The sentence this hit is in, if the window from its start still holds the hit.
    let k = -1;
    for (const st of starts) if (st <= x.pos) k = st;
    if (k >= 0 && k < x.pos && x.pos - k < size) {
      const t = score(inst, k, size, doc.length).score + (k === 0 ? 120 : 100);
      if (t > best.score) best = { score: t, start: k };
    }
  }
  if (best.score < 0) best = { score: 0, start: 0 };
  return { ...best, doc, inst, text };
}

function render(b: Best, size: number): string {
  const { doc, inst, text } = b;
  if (doc.length === 0) return text.slice(0, 200);
  const first = b.start;
  const last = Math.min(doc.length, first + size) - 1;
  // Highlighted token ranges (overlapping instances merge, adjacent ones do not).
  const open = new Map<number, number>();
  for (const x of inst) {
    const a = Math.max(x.pos, first);
    const z = Math.min(x.pos + x.len - 1, last);
    if (a > z) continue;
    open.set(a, Math.max(open.get(a) ?? -1, z));
  }
  let out = first > 0 ? ELLIPSIS : text.slice(0, doc[0]!.start);
  let closeAt = -1;
  for (let i = first; i <= last; i++) {
    const t = doc[i]!;
    if (i > first) out += text.slice(doc[i - 1]!.end, t.start);
    const o = open.get(i);
    if (o !== undefined && closeAt < i) {
      out += OPEN;
      closeAt = o;
    } else if (o !== undefined) {
      closeAt = Math.max(closeAt, o);
    }
    out += text.slice(t.start, t.end);
    if (closeAt === i) out += CLOSE;
  }
  out += last < doc.length - 1 ? ELLIPSIS : text.slice(doc[last]!.end);
  return out;
}

/** The snippet of the best column among `columns` (the first one on ties). */
export function snippet(columns: Array<string | null>, phrases: RankPhrase[], size = SNIPPET_TOKENS): string {
  let best: Best | undefined;
  for (const c of columns) {
    if (c === null || c === "") continue;
    const b = bestOf(c, phrases, size);
    if (best === undefined || b.score > best.score) best = b;
  }
  return best === undefined ? "" : render(best, size);
}
