/** The part of a verdict's cache key that provenance contributes: which index, at which version. */
import type { ProvenanceView } from "./types.js";

const ids = new WeakMap<ProvenanceView, number>();
let next = 1;

export function provenanceKey(view: ProvenanceView | undefined): string {
  if (view === undefined) return "";
  let id = ids.get(view);
  if (id === undefined) {
    id = next++;
    ids.set(view, id);
  }
  return `${id}:${view.version}`;
}
