/** The provenance conditions of a rule, `flow:` and `when.saw`, read after the schema checked their shape. */
import type { DataPath } from "@palisade/schema";
import { ROLES, TRUSTS, type Origin, type Role, type Trust } from "../provenance/types.js";
import type { FlowCondition } from "./flow.js";

/** Where the checks beyond the schema report: a problem at a data path, placed where it is written. */
export interface Report {
  add: (at: DataPath, message: string, key?: boolean) => void;
}

/** A string or a list of them, each with its data path (the schema checked the types). */
export function listAt(value: unknown, at: DataPath): { value: string; at: DataPath }[] {
  if (typeof value === "string") return [{ value, at }];
  if (!Array.isArray(value)) return [];
  return value.flatMap((v, i) =>
    typeof v === "string" || typeof v === "number" ? [{ value: String(v), at: [...at, i] }] : [],
  );
}

const ORIGINS: readonly Origin[] = [...TRUSTS, "model"];

/** `from: untrusted|secret` or `from: [untrusted, secret]`: every name one of `allowed`, at least one. */
function names<T extends string>(report: Report, value: unknown, at: DataPath, allowed: readonly T[]): T[] {
  const out: T[] = [];
  let bad = false;
  for (const item of listAt(value, at)) {
    for (const name of item.value.split("|").map((x) => x.trim())) {
      if ((allowed as readonly string[]).includes(name)) out.push(name as T);
      else {
        bad = true;
        report.add(item.at, `unknown value ${JSON.stringify(name)} (one of ${allowed.join(", ")})`);
      }
    }
  }
  if (out.length === 0 && !bad && (typeof value === "string" || Array.isArray(value)))
    report.add(at, `must name at least one of ${allowed.join(", ")}`);
  return out;
}

function condition(report: Report, value: unknown, at: DataPath): FlowCondition {
  const c = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  return {
    roles: c.roles === undefined ? [] : names<Role>(report, c.roles, [...at, "roles"], ROLES),
    from: c.from === undefined ? [] : names<Origin>(report, c.from, [...at, "from"], ORIGINS),
  };
}

/** One condition (a mapping) or a list of them, all of which must hold. */
export function readFlow(report: Report, value: unknown, at: DataPath): FlowCondition[] {
  if (Array.isArray(value)) return value.map((item, i) => condition(report, item, [...at, i]));
  return [condition(report, value, at)];
}

export function readSaw(report: Report, value: unknown, at: DataPath): Trust[] {
  return names<Trust>(report, value, at, TRUSTS);
}
