import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import * as path from "node:path";
import { HOME_PARENTS } from "./hidden.js";
import type { HostFacts, PathFact } from "./plan.js";

/** Host facts read from the file system (symlinks resolved, so the real paths get mounted). */
export function hostFacts(home: string = process.env.HOME || homedir()): HostFacts {
  return {
    home: resolveReal(home),
    inspect(p: string): PathFact {
      let link: string | undefined;
      try {
        if (lstatSync(p).isSymbolicLink()) link = readlinkSync(p);
      } catch {
        return { kind: "missing", real: p };
      }
      try {
        const real = realpathSync(p);
        return { kind: statSync(real).isDirectory() ? "dir" : "file", real, ...(link === undefined ? {} : { link }) };
      } catch {
        // a dangling symlink: nothing to hide behind it
        return { kind: "missing", real: p };
      }
    },
    homes(): string[] {
      return HOME_PARENTS.flatMap((parent) => {
        try {
          return readdirSync(parent).map((name) => path.join(parent, name));
        } catch {
          return [];
        }
      });
    },
  };
}

function resolveReal(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
