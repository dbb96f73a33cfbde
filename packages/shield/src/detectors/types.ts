import type { Subject } from "../normalize/subject.js";
import type { DetectorCategory, Severity } from "../types.js";

export interface Hit {
  reason: string;
  /** Lower than the detector's severity when the context makes the hit less certain. */
  severity?: Severity;
}

/** A deterministic check over a normalized action. `severity` is the strongest it reports. */
export interface Detector {
  id: string;
  category: DetectorCategory;
  severity: Severity;
  description: string;
  detect(s: Subject): Hit | undefined;
}
