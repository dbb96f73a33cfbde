/**
 * The role each argument fills, from the tool's semantics (declared or inferred) and, for tools
 * whose semantics do not say, from the argument's name: where a value goes (recipient, host),
 * what it carries (URL path/query, body, amount), what runs (command, delegated task), which file.
 */
import { URL_KEYS, type ToolSpec } from "../tools.js";
import type { Role } from "./types.js";

const CHANNEL =
  /^(channel|channels|channel_?(name|id)|room|chat|conversation|thread|group|user|username|handle|recipient_?(id|account)?|payee|beneficiary|iban|account|to_?account|destination_?account)$/i;
const AMOUNT = /^(amount|sum|price|total|value|quantity|qty)$/i;

/** Roles of a top-level argument (none: the Shield has no flow question about it). */
export function rolesOf(spec: ToolSpec, key: string): Role[] {
  if (spec.recipients?.includes(key) === true || CHANNEL.test(key)) return ["recipient"];
  if (spec.urls?.includes(key) === true || URL_KEYS.has(key)) return ["host", "url-path"];
  if (spec.commands?.includes(key) === true) return ["command"];
  if ((spec.kind === "spawn-agent" || spec.kind === "agent-message") && spec.modelFacing?.includes(key) === true)
    return ["task"];
  if (AMOUNT.test(key)) return ["amount"];
  if (spec.paths[key] !== undefined && spec.kind !== "third-party") return ["path"];
  if (spec.outgoing?.includes(key) === true || spec.kind === "third-party" || spec.source === "inferred")
    return ["body"];
  return [];
}
