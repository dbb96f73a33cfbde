// Reads the top level of a request body without building it. The gateway forwards the bytes as
// sent, so what it checks must be what any upstream parser reads: the grammar is checked strictly
// outside strings, and where each string ends (what a string holds cannot move that, so its
// escapes and characters are left to the upstream's parser); a top-level key must be plain ASCII
// and may appear only once, since parsers differ on which of two equal keys they keep
// (JSON.parse the last, others the first). Only the values asked for are parsed: the history
// around them is skipped, not built into objects the Engine would then have to collect.

export class BodyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const IN_OBJECT = 1;
const IN_ARRAY = 2;

function fail(b: Uint8Array, at: number, what: string): never {
  throw new BodyError(at >= b.length ? `unexpected end of the body (${what})` : `${what} at byte ${String(at)}`);
}

function skipSpace(b: Uint8Array, i: number): number {
  let c = b[i];
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = b[++i];
  return i;
}

/** `i` is at an opening quote; returns the index after the closing one. */
function skipString(b: Buffer, i: number): number {
  // Short strings (most keys and values) byte by byte; then by searching for the next quote.
  const n = Math.min(b.length, i + 64);
  let j = i + 1;
  for (; j < n; j++) {
    const c = b[j];
    if (c === QUOTE) return j + 1;
    // Whatever follows a backslash is escaped (a quote included); its validity is the parser's.
    if (c === BACKSLASH) j++;
  }
  for (;;) {
    const q = b.indexOf(QUOTE, j);
    if (q < 0) return fail(b, b.length, "a string is not closed");
    let k = q - 1;
    while (k >= j && b[k] === BACKSLASH) k--;
    // Backslashes before `j` were all paired above or in an earlier round.
    if ((q - 1 - k) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const isDigit = (c: number | undefined): boolean => c !== undefined && c >= DIGIT_0 && c <= DIGIT_9;

function skipDigits(b: Uint8Array, i: number): number {
  if (!isDigit(b[i])) fail(b, i, "expected a digit");
  while (isDigit(b[i])) i++;
  return i;
}

/** A number (strict JSON syntax) or true, false, null. */
function skipScalar(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c === 0x74 && b[i + 1] === 0x72 && b[i + 2] === 0x75 && b[i + 3] === 0x65) return i + 4; // true
  if (c === 0x6e && b[i + 1] === 0x75 && b[i + 2] === 0x6c && b[i + 3] === 0x6c) return i + 4; // null
  if (c === 0x66 && b[i + 1] === 0x61 && b[i + 2] === 0x6c && b[i + 3] === 0x73 && b[i + 4] === 0x65) return i + 5; // false
  let j = c === 0x2d ? i + 1 : i;
  if (b[j] === DIGIT_0) j++;
  else if (isDigit(b[j])) j = skipDigits(b, j);
  else fail(b, i, "not a JSON value");
  if (b[j] === 0x2e) j = skipDigits(b, j + 1);
  if (b[j] === 0x65 || b[j] === 0x45) {
    j++;
    if (b[j] === 0x2b || b[j] === 0x2d) j++;
    j = skipDigits(b, j);
  }
  return j;
}

/** `i` is at a key's opening quote; returns the index after its colon. */
function skipKey(b: Buffer, i: number): number {
  if (b[i] !== QUOTE) fail(b, i, "expected a key");
  i = skipSpace(b, skipString(b, i));
  if (b[i] !== COLON) fail(b, i, "expected ':'");
  return i + 1;
}

/** Checks the value at `i` (after spaces) and returns the index after it. */
function skipValue(b: Buffer, i: number): number {
  const open: number[] = [];
  for (;;) {
    i = skipSpace(b, i);
    const c = b[i];
    if (c === OPEN_OBJECT) {
      i = skipSpace(b, i + 1);
      if (b[i] === CLOSE_OBJECT) i++;
      else {
        open.push(IN_OBJECT);
        i = skipKey(b, i);
        continue;
      }
    } else if (c === OPEN_ARRAY) {
      i = skipSpace(b, i + 1);
      if (b[i] === CLOSE_ARRAY) i++;
      else {
        open.push(IN_ARRAY);
        continue;
      }
    } else if (c === QUOTE) i = skipString(b, i);
    else i = skipScalar(b, i);
    // After a value: close what ends here, then the next member or element.
    for (;;) {
      const top = open[open.length - 1];
      if (top === undefined) return i;
      i = skipSpace(b, i);
      const d = b[i];
      if (d === COMMA) {
        i = top === IN_OBJECT ? skipKey(b, skipSpace(b, i + 1)) : i + 1;
        break;
      }
      if (d !== (top === IN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY))
        fail(b, i, top === IN_OBJECT ? "expected ',' or '}'" : "expected ',' or ']'");
      open.pop();
      i++;
    }
  }
}

/**
 * A top-level key's text: printable ASCII with no escape, so that no parser can read it as another
 * key (an escape, a surrogate or a byte that is not UTF-8 is decoded, dropped or replaced
 * differently by different parsers).
 */
function plainKey(b: Buffer, start: number, end: number): string {
  for (let j = start; j < end; j++) {
    const c = b[j] as number;
    if (c < 0x20 || c > 0x7e || c === BACKSLASH)
      fail(b, j, "a top-level key may hold only printable ASCII, with no escape");
  }
  return b.toString("latin1", start, end);
}

function parseSlice(b: Buffer, start: number, end: number): unknown {
  return JSON.parse(b.toString("utf8", start, end));
}

/**
 * Checks that `b` is one strict JSON object with no top-level key twice, and returns the parsed
 * values of the top-level keys in `wanted` that it has.
 */
export function topLevelFields(b: Buffer, wanted: readonly string[]): Map<string, unknown> {
  return readTopLevel(b, wanted).values;
}

/**
 * What a read body's top level was up to the end of the last element of its `messages` array:
 * a model call sends the conversation of the one before it and more, so the next body of the
 * same conversation starts with these bytes, and only what follows them needs reading.
 */
export interface BodyPrefix {
  /** The body read; never changed after (the gateway forwards it and drops it). */
  readonly body: Buffer;
  /** Bytes of `body` read: up to the end of the last element of the top-level `messages` array. */
  readonly length: number;
  /** The top-level keys before and including `messages`, in order. */
  readonly keys: readonly string[];
  /** The values parsed among those keys, and the keys that were asked for. */
  readonly values: ReadonlyMap<string, unknown>;
  readonly wanted: string;
  /** The object, array and string values of the keys after `messages`, as read (the tools, mostly). */
  readonly after: ReadonlyMap<string, { bytes: Buffer; value: unknown }>;
}

export interface TopLevel {
  keys: ReadonlySet<string>;
  values: Map<string, unknown>;
  /** Where a next body of the same conversation can start reading (when this one had messages). */
  prefix?: BodyPrefix;
}

/**
 * The rest of an array after one of its elements: `, element`… then `]`. Returns the index after
 * the `]` and where its last element ends.
 */
function skipArrayRest(b: Buffer, i: number): { end: number; lastElementEnd: number } {
  let lastElementEnd = i;
  for (;;) {
    i = skipSpace(b, i);
    if (b[i] === CLOSE_ARRAY) return { end: i + 1, lastElementEnd };
    if (b[i] !== COMMA) fail(b, i, "expected ',' or ']'");
    i = skipValue(b, i + 1);
    lastElementEnd = i;
  }
}

/**
 * The end of the value at `start` when it is the bytes of `known` (read before): an object, an
 * array or a string ends where its bytes do, whatever follows (a number could go on). Else -1.
 */
function knownValueEnd(b: Buffer, start: number, known: { bytes: Buffer } | undefined): number {
  if (known === undefined) return -1;
  const c = known.bytes[0];
  if (c !== OPEN_OBJECT && c !== OPEN_ARRAY && c !== QUOTE) return -1;
  const end = start + known.bytes.length;
  return end <= b.length && b.compare(known.bytes, 0, known.bytes.length, start, end) === 0 ? end : -1;
}

/** `prior` starts `b`, was read for the same keys, and holds at least one message. */
function continues(b: Buffer, prior: BodyPrefix | undefined, wanted: string): prior is BodyPrefix {
  return (
    prior !== undefined &&
    prior.wanted === wanted &&
    b.length > prior.length &&
    b.compare(prior.body, 0, prior.length, 0, prior.length) === 0
  );
}

/**
 * Like topLevelFields, and every top-level key in the order of the body. With `prior` (what an
 * earlier body of the conversation left, see BodyPrefix), bytes equal to its prefix are not read
 * again: reading resumes after its last message, in the state the prefix's own reading ended in,
 * so the result is the same as reading `b` whole.
 */
export function readTopLevel(b: Buffer, wanted: readonly string[], prior?: BodyPrefix): TopLevel {
  const found = new Map<string, unknown>();
  const keys = new Set<string>();
  const order: string[] = [];
  const asked = wanted.join("\u0000");
  const after = new Map<string, { bytes: Buffer; value: unknown }>();
  // What a next body can resume from: this one read up to the end of its last message.
  const prefixAt = (length: number): BodyPrefix => ({
    body: b,
    length,
    keys: order.slice(),
    values: new Map(found),
    wanted: asked,
    after,
  });
  let prefix: BodyPrefix | undefined;
  let i: number;
  let resumed = false;
  if (continues(b, prior, asked)) {
    for (const k of prior.keys) {
      keys.add(k);
      order.push(k);
    }
    for (const [k, v] of prior.values) found.set(k, v);
    const rest = skipArrayRest(b, prior.length);
    prefix = prefixAt(rest.lastElementEnd);
    i = rest.end;
    resumed = true;
  } else {
    i = skipSpace(b, 0);
    if (b[i] !== OPEN_OBJECT) fail(b, i, "the body must be a JSON object");
    i = skipSpace(b, i + 1);
  }
  if (!resumed && b[i] === CLOSE_OBJECT) i++;
  else {
    // after a resumed prefix, the messages array has just been read: what follows its value
    for (let member = !resumed; ; member = true) {
      if (member) {
        if (b[i] !== QUOTE) fail(b, i, "expected a key");
        const keyEnd = skipString(b, i);
        const key = plainKey(b, i + 1, keyEnd - 1);
        if (keys.has(key)) fail(b, i, `the key ${JSON.stringify(key)} appears twice`);
        keys.add(key);
        order.push(key);
        i = skipSpace(b, keyEnd);
        if (b[i] !== COLON) fail(b, i, "expected ':'");
        const start = skipSpace(b, i + 1);
        if (key === "messages" && b[start] === OPEN_ARRAY && b[skipSpace(b, start + 1)] !== CLOSE_ARRAY) {
          const first = skipValue(b, start + 1);
          const rest = skipArrayRest(b, first);
          i = rest.end;
          if (wanted.includes(key)) found.set(key, parseSlice(b, start, i));
          prefix = prefixAt(rest.lastElementEnd);
        } else {
          const known = prior?.wanted === asked ? prior.after.get(key) : undefined;
          const end = prefix ? knownValueEnd(b, start, known) : -1;
          i = end >= 0 ? end : skipValue(b, start);
          const value = end >= 0 ? known?.value : wanted.includes(key) ? parseSlice(b, start, i) : undefined;
          if (wanted.includes(key)) found.set(key, value);
          const c = b[start];
          if (prefix && (c === OPEN_OBJECT || c === OPEN_ARRAY || c === QUOTE))
            after.set(key, { bytes: b.subarray(start, i), value });
        }
      }
      i = skipSpace(b, i);
      if (b[i] === CLOSE_OBJECT) {
        i++;
        break;
      }
      if (b[i] !== COMMA) fail(b, i, "expected ',' or '}'");
      i = skipSpace(b, i + 1);
    }
  }
  i = skipSpace(b, i);
  if (i !== b.length) fail(b, i, "unexpected bytes after the object");
  return { keys, values: found, ...(prefix ? { prefix } : {}) };
}
