// JSON Schema `pattern` and `patternProperties` run on RE2, in linear time. A tool's schema comes
// from a capability or an MCP server and the string it is matched against comes from the model,
// so with JavaScript's backtracking engine a schema pattern like `^(a+)+$` and a model argument of
// forty "a"s and a "!" would hold the Engine's thread for good.
import { RE2JS } from "re2js";
import type { RegExpEngine, RegExpLike } from "ajv/dist/types/index.js";

/**
 * ajv's `code.regExp`. A pattern RE2 cannot run (a backreference, lookahead or lookbehind) is not
 * checked by the Engine: the capability still validates its own input.
 */
export const re2RegExp: RegExpEngine = Object.assign(
  (pattern: string): RegExpLike => {
    let re: RE2JS | undefined;
    try {
      re = RE2JS.compile(pattern);
    } catch {
      re = undefined;
    }
    // ajv keys compiled patterns by toString(): each pattern needs its own.
    const like: RegExpLike = { test: (s: string) => re === undefined || re.test(s) };
    return Object.assign(like, { toString: () => `re2:${pattern}` });
  },
  { code: "re2RegExp" },
);
