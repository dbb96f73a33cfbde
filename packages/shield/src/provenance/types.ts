/** Where content the Engine delivered came from, and how far it is trusted. */

/**
 * `user`: the user's own messages. `workspace`: files the user keeps. `untrusted`: anything
 * fetched, received or produced by a third-party server. `secret`: what the credential and
 * secret detectors recognize.
 */
export type Trust = "user" | "workspace" | "untrusted" | "secret";
export const TRUSTS: readonly Trust[] = ["user", "workspace", "untrusted", "secret"];

export interface ProvenanceSource {
  kind: "user-message" | "tool-result" | "artifact" | "sub-agent";
  tool?: string;
  callId?: string;
  capability?: string;
  /** URL or path the content was read from, when known. */
  location?: string;
  /** ms since the epoch. */
  at?: number;
}

export interface Label {
  trust: Trust;
  source: ProvenanceSource;
}

/**
 * What an argument value does in the call, from the tool's semantics. `link`: a URL written inside
 * a body, command or task (where the text points a reader or a program), not where the call goes.
 * `package`: a package a shell command installs by name from a registry (npm, pip, cargo, ...).
 */
export type Role =
  "recipient" | "host" | "url-path" | "body" | "amount" | "command" | "path" | "task" | "link" | "package";
export const ROLES: readonly Role[] = [
  "recipient",
  "host",
  "url-path",
  "body",
  "amount",
  "command",
  "path",
  "task",
  "link",
  "package",
];

/**
 * Where one argument value came from. `model`: none of its parts occurs in any labelled content
 * or user message (the model wrote it).
 */
export type Origin = Trust | "model";

/** One argument value in one role, with where its parts were found. */
export interface ArgValue {
  key: string;
  role: Role;
  value: string;
  origins: ReadonlySet<Origin>;
  /** The labelled content each non-user part first appeared in (part → label). */
  sources: { part: string; label: Label }[];
}

/** What the Shield reads of a session's provenance for one call. */
export interface ProvenanceView {
  /** The label of a normalized fragment, if labelled content holds it. */
  label(fragment: string): Label | undefined;
  /** True when the user's own messages hold the fragment. */
  fromUser(fragment: string): boolean;
  /** Fragments of `secret` content, for substring search in encoded or assembled values. */
  secrets(): Iterable<[string, Label]>;
  /**
   * Files (normalized paths) a call of this session wrote secret content into, with the label of
   * that secret: the data moved through a file, and leaves with whatever sends the file.
   */
  secretFiles(): Iterable<[string, Label]>;
  /** The user's latest messages as written (at most 8, each clipped), for the LLM judge. */
  userMessages(): readonly string[];
  /** Trusts of content the session has seen (never evicted). */
  readonly saw: ReadonlySet<Trust>;
  /** Changes whenever something is added: part of the verdict cache key. */
  readonly version: number;
}
