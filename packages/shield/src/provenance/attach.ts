/**
 * The provenance of one evaluation, kept beside its Subject (computed once, only when a rule or
 * the approval text asks for it).
 */
import type { Subject } from "../normalize/subject.js";
import { fileCarriedValues } from "./file-carried.js";
import { argumentProvenance } from "./flows.js";
import type { ArgValue, ProvenanceView } from "./types.js";

const views = new WeakMap<Subject, ProvenanceView>();
const values = new WeakMap<Subject, ArgValue[]>();

export function attachProvenance(s: Subject, view: ProvenanceView | undefined): void {
  if (view !== undefined) views.set(s, view);
}

export function provenanceView(s: Subject): ProvenanceView | undefined {
  return views.get(s);
}

/** The call's argument values with their origins; undefined when the caller gave no provenance. */
export function argumentValues(s: Subject): ArgValue[] | undefined {
  const view = views.get(s);
  if (view === undefined) return undefined;
  let v = values.get(s);
  if (v === undefined) {
    v = [...argumentProvenance(s, view), ...fileCarriedValues(s, view)];
    values.set(s, v);
  }
  return v;
}
