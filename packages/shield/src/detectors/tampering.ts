import { isInside } from "../normalize/paths.js";
import type { Detector } from "./types.js";
import { cmdText, commandViews, findCommand, firstView } from "./util.js";

const AUDIT_SQL =
  /\b(delete\s+from|drop\s+table|update|insert\s+(or\s+replace\s+)?into|alter\s+table)\s+["'`]?(audit|audit_log|events|messages|sessions|verdicts)\b/i;
const PALISADE_PATH =
  /\/(\.config|\.local\/share)\/palisade(\/|$)|\/palisade\.(db|sqlite)(-wal|-shm|-journal)?$|\/\.palisade(\/|$)/i;

export const tampering: Detector[] = [
  {
    id: "tamper.palisade-files",
    category: "tampering",
    severity: "block",
    description: "Touching Palisade's own configuration, data, audit log or policies",
    when: { paths: true },
    detect(s) {
      if (s.paths.length === 0) return undefined;
      const p = s.paths.find(
        (p) => PALISADE_PATH.test(p.path) || s.ctx.protectedPaths.some((d) => isInside(p.path, d)),
      );
      return p !== undefined ? { reason: `Palisade's own files: ${p.path}` } : undefined;
    },
  },
  {
    id: "tamper.palisade-process",
    category: "tampering",
    severity: "block",
    description: "Stopping, reconfiguring or re-launching the Palisade engine or Shield",
    when: { commands: ["kill", "pkill", "killall", "skill", "palisade", "export", "unset"], assignments: true },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          (/^(kill|pkill|killall|skill)$/.test(c.name) && c.args.some((a) => /palisade/i.test(a))) ||
          (c.name === "palisade" && /^(engine|shield|policy|config)/.test(c.args[0] ?? "")) ||
          c.argv.some((a) => /^PALISADE_[A-Z_]*=/.test(a)) ||
          (c.name === "export" && c.args.some((a) => /^PALISADE_/.test(a))) ||
          (c.name === "unset" && c.args.some((a) => /^PALISADE_/.test(a))),
      );
      return c !== undefined ? { reason: `interferes with Palisade: ${cmdText(c)}` } : undefined;
    },
  },
  {
    id: "tamper.audit",
    category: "tampering",
    severity: "block",
    description: "SQL that edits the audit log or history tables",
    when: { text: AUDIT_SQL },
    detect(s) {
      const v = firstView(commandViews(s), AUDIT_SQL);
      return v !== undefined ? { reason: `edits Palisade history: ${v.match}` } : undefined;
    },
  },
  {
    id: "tamper.history-wipe",
    category: "tampering",
    severity: "escalate",
    description: "Erasing shell history or turning history off (covering tracks)",
    when: { commands: ["history", "export", "unset", "set"], assignments: true },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          (c.name === "history" && c.args.some((a) => /^-[a-z]*[cdw]/.test(a))) ||
          c.argv.some((a) => /^HISTFILE=(\/dev\/null)?$|^HISTSIZE=0$/.test(a)) ||
          ((c.name === "export" || c.name === "unset") &&
            c.args.some((a) => /^HISTFILE(=\/dev\/null)?$|^HISTSIZE=0$/.test(a))) ||
          (c.name === "set" && c.args.join(" ") === "+o history"),
      );
      return c !== undefined ? { reason: `erases or disables history: ${cmdText(c)}` } : undefined;
    },
  },
];
