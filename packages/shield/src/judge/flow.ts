/**
 * What the judge is told of the session: the user's own messages and where each argument value
 * came from — never the model's prose or the tool results themselves (text an attacker may have
 * written). Secret values are named, never shown.
 */
import type { Subject } from "../normalize/subject.js";
import { argumentValues } from "../provenance/attach.js";
import { describeLabel } from "../provenance/describe.js";
import type { ProvenanceView } from "../provenance/types.js";
import type { JudgeInput, JudgeProvenance } from "./types.js";

const MAX_VALUES = 32;
const MAX_VALUE_CHARS = 200;

export function judgeFlow(
  subject: Subject | undefined,
  view: ProvenanceView | undefined,
): Pick<JudgeInput, "userMessages" | "provenance"> {
  if (view === undefined) return {};
  const provenance: JudgeProvenance[] = [];
  for (const v of (subject !== undefined ? argumentValues(subject) : undefined) ?? []) {
    if (provenance.length >= MAX_VALUES) break;
    const secret = v.origins.has("secret");
    provenance.push({
      argument: v.key,
      role: v.role,
      value: secret
        ? "(a secret value)"
        : v.value.length > MAX_VALUE_CHARS
          ? `${v.value.slice(0, MAX_VALUE_CHARS)}…`
          : v.value,
      from: [...v.origins],
      firstSeen: v.sources.map((s) => describeLabel(s.label)),
    });
  }
  return { userMessages: [...view.userMessages()], provenance };
}
