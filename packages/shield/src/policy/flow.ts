/**
 * Policy conditions on provenance: `flow:` (which roles carry data of which origin) and
 * `when.saw` (what trust of content the session has seen). Without provenance in the context a
 * flow condition never holds: the rule is skipped and the call is judged as without it.
 */
import type { Subject } from "../normalize/subject.js";
import { argumentValues, provenanceView } from "../provenance/attach.js";
import type { Origin, Role, Trust } from "../provenance/types.js";

export interface FlowCondition {
  roles: Role[];
  from: Origin[];
}

/**
 * One condition. Block/escalate rules: some value in one of the roles has a part of one of the
 * origins. Allow rules: there is a value in the roles, and every such value's origins are all
 * among `from` (an address the user gave, and nothing else).
 */
export function flowHolds(c: FlowCondition, s: Subject, allow: boolean): boolean {
  const values = argumentValues(s);
  if (values === undefined) return false;
  const inRoles = values.filter((v) => c.roles.includes(v.role));
  if (allow) return inRoles.length > 0 && inRoles.every((v) => [...v.origins].every((o) => c.from.includes(o)));
  return inRoles.some((v) => c.from.some((o) => v.origins.has(o)));
}

export function sawHolds(saw: readonly Trust[], s: Subject): boolean {
  const view = provenanceView(s);
  return view !== undefined && saw.some((t) => view.saw.has(t));
}
