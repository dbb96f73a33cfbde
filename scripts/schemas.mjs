// Writes the ahead-of-time compiled validators (`*.generated.ts`) of the schemas of config.yaml,
// capability manifests and policies, and the key tables of the docs made from them. Run `npx tsx scripts/schemas.mjs` after changing a schema
// (tsx: the schemas are TypeScript). Each package's tests fail while its generated file differs
// from what its schema gives now.
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { referenceTable, standaloneModule } from "../packages/schema/src/standalone.js";
import { configSchema } from "../packages/config/src/schema.js";
import { manifestSchema } from "../packages/capabilities/src/manifest/schema.js";
import { capabilityConfigSchema } from "../packages/capabilities/src/config.js";
import { httpSchema, stdioSchema } from "../packages/capabilities/src/mcp/config.js";
import { policySchema } from "../packages/shield/src/policy/schema.js";

const root = join(import.meta.dirname, "..");
/** @type {{ out: string, source: string, schemas: Record<string, object> }[]} */
const modules = [
  { out: "packages/config/src/schema.generated.ts", source: "schema.ts", schemas: { validateConfig: configSchema } },
  {
    out: "packages/capabilities/src/schemas.generated.ts",
    source: "manifest/schema.ts, config.ts and mcp/config.ts",
    schemas: {
      validateManifestStructure: manifestSchema,
      validateCapabilityConfig: capabilityConfigSchema,
      validateMcpStdio: stdioSchema,
      validateMcpHttp: httpSchema,
    },
  },
  {
    out: "packages/shield/src/policy/schema.generated.ts",
    source: "schema.ts",
    schemas: { validatePolicy: policySchema },
  },
];
for (const m of modules) {
  writeFileSync(join(root, m.out), standaloneModule(m.schemas, m.source));
  console.log(`wrote ${relative(root, join(root, m.out))}`);
}

/** The docs' reference tables, between `<!-- NAME keys -->` and `<!-- /NAME keys -->`. */
const tables = [{ doc: "docs/configuration.md", name: "config.yaml", schema: configSchema }];
for (const t of tables) {
  const file = join(root, t.doc);
  const [open, close] = [`<!-- ${t.name} keys -->`, `<!-- /${t.name} keys -->`];
  const text = readFileSync(file, "utf8");
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`${t.doc} has no ${open} … ${close} markers`);
  writeFileSync(file, `${text.slice(0, start + open.length)}\n${referenceTable(t.schema)}\n${text.slice(end)}`);
  console.log(`wrote the ${t.name} table of ${t.doc}`);
}
