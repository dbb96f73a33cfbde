import { readFile, stat } from "node:fs/promises";
import picomatch from "picomatch";
import { RE2JS } from "re2js";
import type { ToolContext, ToolDefinition } from "@palisade/capability-sdk";
import { ToolError } from "@palisade/capability-sdk";
import { isBinaryFile } from "../text.js";
import { NOISY_DIRS, walk } from "../walk.js";
import { Workspace } from "../workspace.js";
import { statOrThrow } from "./read.js";

export const MAX_SEARCH_RESULTS = 1000;
export const MAX_GREP_MATCHES = 500;
/** Files larger than this are skipped by grep_files. */
export const MAX_GREP_FILE_BYTES = 2 * 1024 * 1024;
const MAX_MATCH_LINE_CHARS = 400;

export const searchFiles: ToolDefinition = {
  name: "search_files",
  description:
    "Find files in the workspace whose path matches a glob pattern (e.g. `**/*.ts`, `src/*.md`), relative to `path` (default the root). " +
    "A pattern without `/` matches file names at any depth. Does not descend into .git or node_modules; at most 1000 results.",
  inputSchema: {
    type: "object",
    properties: {
      pattern: { type: "string", minLength: 1, description: 'Glob pattern, e.g. "**/*.test.ts".' },
      path: { type: "string", description: 'Directory to search in, relative to the workspace (default ".").' },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  async handler(args: { pattern: string; path?: string }, ctx: ToolContext) {
    const ws = await Workspace.fromConfig(ctx.config);
    const dir = await directory(ws, args.path);
    const isMatch = picomatch(args.pattern, { dot: true, basename: !args.pattern.includes("/") });
    const matches: string[] = [];
    let truncated = false;
    for await (const e of walk(dir.absolute, { recursive: true, skipDirs: NOISY_DIRS, signal: ctx.signal })) {
      if (!isMatch(e.relative)) continue;
      if (matches.length >= MAX_SEARCH_RESULTS) {
        truncated = true;
        break;
      }
      matches.push(joinRel(dir.relative, e.relative) + (e.type === "directory" ? "/" : ""));
    }
    return {
      pattern: args.pattern,
      path: dir.relative,
      matches,
      ...(truncated
        ? { truncated: true, note: `stopped at ${MAX_SEARCH_RESULTS} results; use a narrower pattern` }
        : {}),
    };
  },
};

export const grepFiles: ToolDefinition = {
  name: "grep_files",
  description:
    "Search the text of workspace files for a regular expression (RE2 syntax, like JavaScript's without backreferences or lookaround). `path` limits the search to a directory or one file, " +
    "`glob` to matching file names (e.g. `*.ts`). Returns file, line number and line for each match (at most 500). " +
    "Skips binary files, files over 2 MiB, .git and node_modules.",
  inputSchema: {
    type: "object",
    properties: {
      pattern: { type: "string", minLength: 1, description: 'Regular expression, e.g. "TODO|FIXME".' },
      path: { type: "string", description: 'Directory or file to search, relative to the workspace (default ".").' },
      glob: { type: "string", description: 'Only search files matching this glob, e.g. "**/*.md".' },
      case_insensitive: { type: "boolean", description: "Ignore case (default false)." },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  async handler(args: { pattern: string; path?: string; glob?: string; case_insensitive?: boolean }, ctx: ToolContext) {
    const ws = await Workspace.fromConfig(ctx.config);
    const regex = compilePattern(args.pattern, args.case_insensitive === true);
    const globMatch = args.glob ? picomatch(args.glob, { dot: true, basename: !args.glob.includes("/") }) : () => true;
    const start = await ws.resolve(args.path ?? ".");
    const startInfo = await statOrThrow(start.absolute, args.path ?? ".");
    const files = startInfo.isFile()
      ? [{ absolute: start.absolute, relative: start.relative }]
      : filesUnder(start.absolute, start.relative, globMatch, ctx.signal);

    const matches: { path: string; line: number; text: string }[] = [];
    let truncated = false;
    let filesSearched = 0;
    let skipped = 0;
    outer: for await (const file of files) {
      const size = (await stat(file.absolute).catch(() => undefined))?.size ?? 0;
      if (size > MAX_GREP_FILE_BYTES || (size > 0 && (await isBinaryFile(file.absolute, size)))) {
        skipped++;
        continue;
      }
      filesSearched++;
      ctx.signal.throwIfAborted();
      const lines = (await readFile(file.absolute, "utf8").catch(() => "")).split(/\r?\n/);
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i] ?? "";
        if (!regex.matcher(line).find()) continue;
        if (matches.length >= MAX_GREP_MATCHES) {
          truncated = true;
          break outer;
        }
        matches.push({
          path: file.relative,
          line: i + 1,
          text: line.length > MAX_MATCH_LINE_CHARS ? `${line.slice(0, MAX_MATCH_LINE_CHARS)} …` : line,
        });
      }
    }
    const result: Record<string, unknown> = { pattern: args.pattern, matches, files_searched: filesSearched };
    if (skipped > 0) result.files_skipped = skipped;
    if (truncated) {
      result.truncated = true;
      result.note = `stopped at ${MAX_GREP_MATCHES} matches; narrow the pattern, path or glob`;
    }
    return result;
  },
};

/**
 * The model writes the pattern, so it runs on RE2's linear-time engine: a pattern like `^(a+)+$`
 * that would backtrack for ever in JavaScript's engine costs the same as any other here.
 */
export function compilePattern(pattern: string, caseInsensitive: boolean): RE2JS {
  try {
    return RE2JS.compile(pattern, caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ToolError(
      `invalid regular expression ${JSON.stringify(pattern)}: ${why} (grep_files uses RE2 syntax: no backreferences such as \\1, no lookahead or lookbehind)`,
      { code: "invalid_pattern" },
    );
  }
}

async function* filesUnder(absolute: string, relative: string, globMatch: (p: string) => boolean, signal: AbortSignal) {
  for await (const e of walk(absolute, { recursive: true, skipDirs: NOISY_DIRS, signal })) {
    if (e.type === "file" && globMatch(e.relative))
      yield { absolute: e.absolute, relative: joinRel(relative, e.relative) };
  }
}

async function directory(ws: Workspace, requested: string | undefined) {
  const dir = await ws.resolve(requested ?? ".");
  const info = await statOrThrow(dir.absolute, requested ?? ".");
  if (!info.isDirectory()) throw new ToolError(`"${requested}" is not a directory`, { code: "not_a_directory" });
  return dir;
}

function joinRel(base: string, rel: string): string {
  return base === "." ? rel : `${base}/${rel}`;
}
