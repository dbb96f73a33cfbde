/**
 * A session's labelled content, bounded: normalized fragments of every labelled delivery (tool
 * results, artifacts, sub-agent results) and of the user's own messages. Each side keeps at most
 * `maxBytes` of fragments (default 256 KiB of labelled fragments, 64 KiB of the user's); when a
 * side is full, its oldest fragments are evicted first. What trust the session has seen is kept
 * whatever is evicted. Up to 256 files the session wrote secret content into are kept apart, and
 * the user's latest 8 messages as written (2000 characters each) for the LLM judge.
 */
import { fragmentsOf } from "./fragments.js";
import { secretValues, wholeSecretValues } from "./secret-values.js";
import type { Label, ProvenanceView, Trust } from "./types.js";

/** Bytes one entry costs besides its characters (the map slot and the label reference). */
const ENTRY_OVERHEAD = 48;
const MAX_SECRETS = 512;
const MAX_SECRET_FILES = 256;
const MAX_USER_MESSAGES = 8;
const MAX_USER_MESSAGE_CHARS = 2000;
const SEVERITY: Record<Trust, number> = { user: 0, workspace: 1, untrusted: 2, secret: 3 };

export interface ProvenanceIndexOptions {
  /** Bound of labelled fragments, in bytes (UTF-16 characters × 2 plus overhead). */
  maxBytes?: number;
  /** Bound of the user's fragments, in bytes. */
  maxUserBytes?: number;
}

const cost = (f: string): number => f.length * 2 + ENTRY_OVERHEAD;

class BoundedMap<V> {
  readonly map = new Map<string, V>();
  bytes = 0;
  evicted = 0;
  constructor(readonly max: number) {}
  set(k: string, v: V): void {
    const had = this.map.has(k);
    if (had) this.map.delete(k);
    else this.bytes += cost(k);
    this.map.set(k, v);
    while (this.bytes > this.max && this.map.size > 0) {
      const oldest = this.map.keys().next().value as string;
      this.map.delete(oldest);
      this.bytes -= cost(oldest);
      this.evicted++;
    }
  }
}

export class ProvenanceIndex implements ProvenanceView {
  private readonly labelled: BoundedMap<Label>;
  private readonly user: BoundedMap<true>;
  private readonly secretParts = new Map<string, Label>();
  private readonly files = new Map<string, Label>();
  private readonly said: string[] = [];
  private readonly seen = new Set<Trust>();
  private counter = 0;

  constructor(options: ProvenanceIndexOptions = {}) {
    this.labelled = new BoundedMap(options.maxBytes ?? 256 * 1024);
    this.user = new BoundedMap(options.maxUserBytes ?? 64 * 1024);
  }

  get saw(): ReadonlySet<Trust> {
    return this.seen;
  }

  get version(): number {
    return this.counter;
  }

  /** Bytes held and fragments evicted, per side (for tests and `sessions show`). */
  usage(): { bytes: number; userBytes: number; fragments: number; evicted: number } {
    return {
      bytes: this.labelled.bytes,
      userBytes: this.user.bytes,
      fragments: this.labelled.map.size,
      evicted: this.labelled.evicted + this.user.evicted,
    };
  }

  /** A user message: its fragments are the user's (an argument holding them is user-given). */
  addUserMessage(text: string): void {
    this.counter++;
    this.seen.add("user");
    this.said.push(text.length > MAX_USER_MESSAGE_CHARS ? `${text.slice(0, MAX_USER_MESSAGE_CHARS)}…` : text);
    if (this.said.length > MAX_USER_MESSAGES) this.said.shift();
    const amounts = new Set<string>();
    for (const f of fragmentsOf(text, amounts)) this.user.set(f, true);
    for (const a of amounts) this.user.set(a, true);
    for (const w of words(text)) this.user.set(w, true);
  }

  /**
   * Delivered content with its label. Secret values found in it are labelled `secret` whatever
   * the content's own trust; content labelled `secret` as a whole gives all its key-like tokens.
   */
  add(text: string, label: Label): void {
    this.counter++;
    this.seen.add(label.trust);
    const values = label.trust === "secret" ? wholeSecretValues(text) : secretValues(text);
    if (values.length > 0) {
      const secret: Label = label.trust === "secret" ? label : { trust: "secret", source: label.source };
      this.seen.add("secret");
      for (const v of values) {
        if (this.secretParts.size >= MAX_SECRETS)
          this.secretParts.delete(this.secretParts.keys().next().value as string);
        this.secretParts.set(v, secret);
        this.put(v, secret);
      }
    }
    if (label.trust === "secret") return;
    const amounts = new Set<string>();
    for (const f of fragmentsOf(text, amounts)) this.put(f, label);
    for (const a of amounts) this.put(a, label);
    for (const w of words(text)) this.put(w, label);
  }

  private put(f: string, label: Label): void {
    const had = this.labelled.map.get(f);
    // the most severe label wins; among equals the first source stays (where it first appeared)
    if (had !== undefined && SEVERITY[had.trust] >= SEVERITY[label.trust]) return;
    this.labelled.set(f, label);
  }

  label(fragment: string): Label | undefined {
    return this.labelled.map.get(fragment) ?? this.secretParts.get(fragment);
  }

  fromUser(fragment: string): boolean {
    return this.user.map.has(fragment);
  }

  secrets(): Iterable<[string, Label]> {
    return this.secretParts.entries();
  }

  /** A file a call wrote secret content into (see `secretWrites`); the oldest go first past 256. */
  markSecretFile(path: string, label: Label): void {
    this.counter++;
    this.files.delete(path);
    this.files.set(path, label);
    if (this.files.size > MAX_SECRET_FILES) this.files.delete(this.files.keys().next().value as string);
  }

  userMessages(): readonly string[] {
    return this.said;
  }

  secretFiles(): Iterable<[string, Label]> {
    return this.files.entries();
  }
}

/** Plain words of 4+ letters: channel names, account names, recipients given in prose. */
export function words(text: string): Set<string> {
  const out = new Set<string>();
  const t = text.length > 64 * 1024 ? text.slice(0, 64 * 1024) : text;
  for (const m of t.toLowerCase().matchAll(/[\p{L}\p{N}_-]{4,40}/gu)) out.add(m[0]);
  return out;
}
