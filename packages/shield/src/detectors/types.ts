import type { Subject } from "../normalize/subject.js";
import type { ToolKind } from "../tools.js";
import type { DetectorCategory, Severity } from "../types.js";

export interface Hit {
  reason: string;
  /** Lower than the detector's severity when the context makes the hit less certain. */
  severity?: Severity;
}

/**
 * Conditions without which a detector cannot fire: the runner only calls it when at least one
 * of them holds (most actions have no commands, no URLs, no suspicious text, ...). Every way the
 * detector can report a hit must be covered by one of them (test/triggers.test.ts checks this
 * on the corpus); a detector without triggers runs on every action.
 */
export interface Triggers {
  /** Commands with one of these names (effective name or a wrapper such as sudo), or any command. */
  commands?: readonly string[] | "any";
  /** A test on command names, for families like `mkfs.*` or the code interpreters. */
  commandNamed?: (name: string) => boolean;
  paths?: true;
  urls?: true;
  recipients?: true;
  kinds?: readonly ToolKind[];
  /** Some path is written, deleted or used in an unknown way (`isWrite`). */
  writePaths?: true;
  /** Some command reads a variable the reader could not resolve (`SimpleCommand.vars`). */
  vars?: true;
  /** Some command word is a variable assignment (`NAME=value`). */
  assignments?: true;
  /** Some text view matches this pattern (a pre-check shared by a group of detectors). */
  text?: RegExp;
  /** Some path (in lower case) matches this pattern. */
  pathMatches?: RegExp;
  /** One of these arguments is present. */
  args?: readonly string[];
  /** The action has analysis limits, shell syntax errors, tag-character text or Unicode tricks. */
  limits?: true;
  shellErrors?: true;
  hiddenText?: true;
  unicodeTricks?: true;
}

/** A deterministic check over a normalized action. `severity` is the strongest it reports. */
export interface Detector {
  id: string;
  category: DetectorCategory;
  severity: Severity;
  description: string;
  when?: Triggers;
  /** Declared as a property: the runner keeps the function and calls it on its own. */
  detect: (s: Subject) => Hit | undefined;
}
