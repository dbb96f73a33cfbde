// Schemas compiled ahead of time: ajv's standalone code, committed beside each schema as
// `*.generated.ts`, so that no process compiles a schema when it starts (importing ajv and
// compiling a schema of config.yaml's size costs tens of milliseconds). `scripts/schemas.mjs`
// writes the files; each package's tests compare them with what this function makes now.
import { Ajv } from "ajv";
import standaloneCode from "ajv/dist/standalone/index.js";

export { referenceTable } from "./doc.js";

/** Annotations our schemas carry for messages and docs (see problems.ts); ajv ignores them. */
export const ANNOTATIONS = ["x-message", "x-required", "x-doc"] as const;

/** ajv's runtime helpers, inlined (same results). */
const RUNTIME: Record<string, string> = {
  // minLength / maxLength count code points, not UTF-16 units
  ucs2length: "((s) => [...s].length)",
};

/** The ajv every schema of ours is compiled with: all errors, each with its schema and data. */
export function schemaAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    strict: true,
    allowUnionTypes: true,
    code: { source: true, esm: true, lines: true },
  });
  for (const keyword of ANNOTATIONS) ajv.addKeyword({ keyword });
  return ajv;
}

/**
 * TypeScript source exporting one validator per entry of `schemas` (export name → schema).
 * `source` names the module the schemas come from, for the header.
 */
export function standaloneModule(schemas: Record<string, object>, source: string): string {
  const ajv = schemaAjv();
  const refs: Record<string, string> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    ajv.addSchema(schema, name);
    refs[name] = name;
  }
  // A CommonJS module: its default export is `module.exports`, which carries the function as `.default` too.
  let code = standaloneCode.default(ajv, refs);
  // ajv writes `require()` for its runtime helpers even in ESM output; the one our schemas need is
  // inlined, so the generated module imports nothing.
  code = code.replace(/require\("ajv\/dist\/runtime\/([\w-]+)"\)\.default/g, (_m, helper: string) => {
    const inline = RUNTIME[helper];
    if (inline === undefined)
      throw new Error(`no inline version of ajv's runtime helper ${helper}: add one to RUNTIME`);
    return inline;
  });
  code = code.replace(/^"use strict";\n?/, "");
  return [
    `// Generated from ${source} by \`npx tsx scripts/schemas.mjs\`: do not edit, regenerate.`,
    "// @ts-nocheck",
    code.trim(),
    "",
  ].join("\n");
}
