/**
 * "Allow for this session" covers a class of calls the person saw once. A call whose arguments
 * carry data from untrusted or secret content is not that class, whatever its shape: the data
 * is new each time, so it is asked every time.
 */
import type { ActionClass } from "../action-class.js";
import type { Subject } from "../normalize/subject.js";
import { argumentValues } from "./attach.js";
import { describeValues } from "./describe.js";

export function carriedData(s: Subject, cls: ActionClass): ActionClass {
  if (cls.askEveryTime !== undefined) return cls;
  const values = argumentValues(s);
  if (values === undefined) return cls;
  const carried = values.filter((v) => v.role !== "path" && (v.origins.has("untrusted") || v.origins.has("secret")));
  if (carried.length === 0) return cls;
  const said = describeValues(carried, [...new Set(carried.map((v) => v.role))], ["untrusted", "secret"]);
  return {
    ...cls,
    askEveryTime: `its arguments carry data from content the user did not write${said === "" ? "" : ` (${said})`}`,
  };
}
