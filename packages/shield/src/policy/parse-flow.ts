/** Reading the provenance conditions of a rule: `flow:` and `when.saw`. */
import { isMap, isSeq, type Node } from "yaml";
import { ROLES, TRUSTS, type Origin, type Role, type Trust } from "../provenance/types.js";
import type { FlowCondition } from "./flow.js";
import type { Reader } from "./parse.js";

const ORIGINS: readonly Origin[] = [...TRUSTS, "model"];

/** `from: untrusted|secret` or `from: [untrusted, secret]`. */
function names<T extends string>(r: Reader, node: Node | null | undefined, what: string, allowed: readonly T[]): T[] {
  const out: T[] = [];
  const before = r.problems.length;
  for (const item of r.strList(node, what)) {
    for (const name of item.value.split("|").map((x) => x.trim())) {
      if ((allowed as readonly string[]).includes(name)) out.push(name as T);
      else r.problem(item.node, `${what}: unknown value "${name}" (one of ${allowed.join(", ")})`);
    }
  }
  if (out.length === 0 && r.problems.length === before)
    r.problem(node, `${what} must name at least one of ${allowed.join(", ")}`);
  return out;
}

function condition(r: Reader, node: Node, what: string): FlowCondition {
  const m = r.map(node, what, ["roles", "from"]);
  const roles = m.get("roles");
  const from = m.get("from");
  if (roles === undefined) r.problem(node, `${what} has no roles (one or more of ${ROLES.join(", ")})`);
  if (from === undefined) r.problem(node, `${what} has no from (one or more of ${ORIGINS.join(", ")})`);
  return {
    roles: roles === undefined ? [] : names<Role>(r, roles.value, `${what}.roles`, ROLES),
    from: from === undefined ? [] : names<Origin>(r, from.value, `${what}.from`, ORIGINS),
  };
}

/** One condition (a mapping) or a list of them, all of which must hold. */
export function readFlow(r: Reader, node: Node | null, what: string): FlowCondition[] {
  if (isSeq(node)) return node.items.map((item, i) => condition(r, item as Node, `${what}[${i}]`));
  if (isMap(node)) return [condition(r, node, what)];
  r.problem(node, `${what} must be a mapping {roles, from} or a list of them`);
  return [];
}

export function readSaw(r: Reader, node: Node | null, what: string): Trust[] {
  return names<Trust>(r, node, what, TRUSTS);
}
