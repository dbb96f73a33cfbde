// A model request body as UTF-8 JSON, with the conversation's bytes kept between calls. Every call
// sends the whole conversation again (a turn's second call, then each later turn); serializing it
// and converting the text to UTF-8 anew cost more of the Agent's CPU than anything else in a call,
// and grew with the conversation. The messages' bytes are kept in order; a call that sends the
// same message objects first (the conversation the Agent keeps between turns, see context.ts)
// encodes only the messages after them.

interface Encoded {
  /** The message objects encoded, in order, and where each one's bytes end in `bytes`. */
  items: unknown[];
  ends: number[];
  /** `m0,m1,…` (the array's elements without its brackets); `length` bytes of it are used. */
  bytes: Buffer;
  length: number;
}

/**
 * Keyed by the conversation's second message (its first after the system prompt: a message of the
 * kept history, or the turn's own user message): each session's bytes live as long as its history.
 */
const conversations = new WeakMap<object, Encoded>();

function append(enc: Encoded, text: string): void {
  const need = enc.length + Buffer.byteLength(text);
  if (need > enc.bytes.length) {
    const grown = Buffer.allocUnsafe(Math.max(need, 2 * enc.bytes.length, 4096));
    enc.bytes.copy(grown, 0, 0, enc.length);
    enc.bytes = grown;
  }
  enc.length += enc.bytes.write(text, enc.length);
}

/** The array's elements as JSON (`m0,m1,…`), the unchanged leading messages taken as kept bytes. */
function encodeMessages(messages: readonly unknown[]): Buffer {
  const key = messages.length > 1 ? messages[1] : messages[0];
  if (typeof key !== "object" || key === null) return Buffer.from(JSON.stringify(messages).slice(1, -1));
  let enc = conversations.get(key);
  if (!enc) {
    enc = { items: [], ends: [], bytes: Buffer.alloc(0), length: 0 };
    conversations.set(key, enc);
  }
  let same = 0;
  const n = Math.min(enc.items.length, messages.length);
  while (same < n && enc.items[same] === messages[same]) same++;
  enc.items.length = same;
  enc.ends.length = same;
  enc.length = same > 0 ? (enc.ends[same - 1] ?? 0) : 0;
  for (let i = same; i < messages.length; i++) {
    const m = messages[i];
    // JSON.stringify writes an element it cannot represent (undefined, a function) as null.
    append(enc, `${i > 0 ? "," : ""}${JSON.stringify(m) ?? "null"}`);
    enc.items.push(m);
    enc.ends.push(enc.length);
  }
  return enc.bytes.subarray(0, enc.length);
}

/**
 * `Buffer.from(JSON.stringify(body))`, byte for byte, with the `messages` array's leading elements
 * taken from the bytes kept for them. A message must not be changed after it was sent once (code
 * that shortens one replaces the object, as fitToolResults does); the history's messages
 * (toChatMessages) and the system prompt's are frozen.
 */
export function encodeRequestBody(body: Readonly<Record<string, unknown>>): Buffer {
  const parts: Buffer[] = [];
  let text = "{";
  let first = true;
  for (const key of Object.keys(body)) {
    const value = body[key];
    if (key === "messages" && Array.isArray(value)) {
      text += `${first ? "" : ","}${JSON.stringify(key)}:[`;
      parts.push(Buffer.from(text), encodeMessages(value));
      text = "]";
      first = false;
      continue;
    }
    const json = JSON.stringify(value);
    if (json === undefined) continue; // JSON.stringify leaves out undefined, functions and symbols
    text += `${first ? "" : ","}${JSON.stringify(key)}:${json}`;
    first = false;
  }
  parts.push(Buffer.from(`${text}}`));
  return Buffer.concat(parts);
}
