import { didYouMean, pathParts, readYaml, schemaProblems, syntaxProblems } from "@palisade/schema";
import type { ValidateFunction } from "@palisade/schema";
import { ValidationError } from "../errors.js";
import type { Problem } from "../errors.js";
import { compileToolSchema } from "../json-schema.js";
import { parseHostEntry } from "./hosts.js";
import { validateManifestStructure } from "../schemas.generated.js";
import { KNOWN_KEYS } from "./schema.js";
import { RESOURCE_DEFAULTS } from "./types.js";
import type { CredentialSpec, Manifest, ManifestTool } from "./types.js";
import type { ManifestPolicy } from "@palisade/protocol/policy";

const validateStructure = validateManifestStructure as unknown as ValidateFunction;

type Raw = Record<string, unknown>;

/**
 * Parses and validates a manifest (pure: text in, Manifest out). Every problem is collected
 * with its field path; any problem refuses the whole manifest (throws ValidationError).
 */
export function parseManifest(text: string, file: string): Manifest {
  const yaml = readYaml(text);
  if (yaml.errors.length > 0) {
    throw new ValidationError("invalid_manifest", `manifest ${file}`, syntaxProblems(file, yaml.errors));
  }
  try {
    return validateManifest(yaml.data, file);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    // Each problem placed where it is written (an unknown key at the key, a missing one at its parent).
    const placed = err.problems.map((p) => ({ ...p, ...yaml.locate(pathParts(p.path)) }));
    throw new ValidationError("invalid_manifest", `manifest ${file}`, placed);
  }
}

/** Validates an already-parsed manifest document. */
export function validateManifest(data: unknown, file: string): Manifest {
  const problems: Problem[] = [];
  const add = (path: string, message: string): void => {
    problems.push({ file, path, message });
  };
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    add("", "must be a YAML mapping with at least `id` (see docs/capabilities.md)");
    throw new ValidationError("invalid_manifest", `manifest ${file}`, problems);
  }
  const raw = data as Raw;
  if (!validateStructure(raw)) {
    for (const p of schemaProblems(validateStructure.errors)) add(p.path, p.message);
  }
  const warnings = unknownKeys(raw);
  const tools = Array.isArray(raw.tools) ? (raw.tools as unknown[]) : [];
  const toolSource = raw.tool_source === "dynamic" ? "dynamic" : "manifest";
  const cls = raw.class === "environment" ? "environment" : "tool";

  // Cross-field rules of the Selu manifest format.
  if (toolSource === "dynamic" && tools.length > 0)
    add("tools", "must be empty when tool_source is dynamic (tools come from the discovery tool)");
  if (toolSource === "manifest" && tools.length === 0)
    add("tools", "must list at least one tool when tool_source is manifest (or set tool_source: dynamic)");
  const seenTools = new Map<string, number>();
  tools.forEach((t, i) => {
    if (typeof t !== "object" || t === null) return;
    const tool = t as Raw;
    if (typeof tool.name === "string") {
      const first = seenTools.get(tool.name);
      if (first !== undefined) add(`tools[${i}].name`, `duplicate tool name "${tool.name}" (also tools[${first}])`);
      else seenTools.set(tool.name, i);
    }
    if (typeof tool.input_schema === "object" && tool.input_schema !== null && !Array.isArray(tool.input_schema)) {
      const problem = checkInputSchema(tool.input_schema as Raw);
      if (problem) add(`tools[${i}].input_schema`, problem);
    }
  });
  if (raw.filesystem === "workspace" && cls !== "environment") {
    add(
      "filesystem",
      'workspace is only allowed for class: environment (use "temp" or "none", or set class: environment)',
    );
  }
  const network = (typeof raw.network === "object" && raw.network !== null ? raw.network : {}) as Raw;
  const hosts = Array.isArray(network.hosts) ? (network.hosts as unknown[]) : [];
  hosts.forEach((h, i) => {
    if (typeof h !== "string") return;
    const parsed = parseHostEntry(h);
    if ("error" in parsed) add(`network.hosts[${i}]`, parsed.error);
  });
  const mode = network.mode ?? "none";
  if (mode === "allowlist" && hosts.length === 0)
    add("network.hosts", 'must list at least one host when network.mode is allowlist (e.g. "api.example.com:443")');
  if (mode !== "allowlist" && hosts.length > 0)
    add("network.hosts", `is only used with network.mode: allowlist (mode is ${JSON.stringify(mode)})`);
  const sandbox = (typeof raw.sandbox === "object" && raw.sandbox !== null ? raw.sandbox : {}) as Raw;
  for (const field of ["read_only", "writable", "sockets"]) {
    const list = Array.isArray(sandbox[field]) ? (sandbox[field] as unknown[]) : [];
    list.forEach((p, i) => {
      if (typeof p === "string" && !p.startsWith("/") && !p.startsWith("~/")) {
        add(`sandbox.${field}[${i}]`, `"${p}" must be an absolute path or start with ~/ (the home)`);
      }
    });
  }
  const creds = Array.isArray(raw.credentials) ? (raw.credentials as unknown[]) : [];
  const seenCreds = new Map<string, number>();
  creds.forEach((c, i) => {
    const name = typeof c === "object" && c !== null ? (c as Raw).name : undefined;
    if (typeof name !== "string") return;
    const first = seenCreds.get(name);
    if (first !== undefined)
      add(`credentials[${i}].name`, `duplicate credential "${name}" (also credentials[${first}])`);
    else seenCreds.set(name, i);
  });

  if (problems.length > 0) throw new ValidationError("invalid_manifest", `manifest ${file}`, problems);
  return normalize(raw, file, warnings);
}

function checkInputSchema(schema: Raw): string | undefined {
  if (schema.type !== undefined && schema.type !== "object") {
    return `must describe an object (type: object), as tool arguments are a JSON object (got type ${JSON.stringify(schema.type)})`;
  }
  try {
    compileToolSchema(schema);
    return undefined;
  } catch (err) {
    return `is not a valid JSON Schema: ${err instanceof Error ? err.message : String(err)}`;
  }
}

function unknownKeys(raw: Raw): string[] {
  const out: string[] = [];
  const check = (obj: unknown, known: readonly string[], path: string): void => {
    if (typeof obj !== "object" || obj === null || Array.isArray(obj)) return;
    for (const key of Object.keys(obj)) {
      if (known.includes(key)) continue;
      const near = didYouMean(key, known);
      out.push(
        `${path ? `${path}.` : ""}${key}: unknown field, ignored${near === undefined ? "" : `; did you mean ${near}?`}`,
      );
    }
  };
  check(raw, KNOWN_KEYS[""] ?? [], "");
  for (const section of ["network", "sandbox", "resources"]) check(raw[section], KNOWN_KEYS[section] ?? [], section);
  for (const section of ["tools", "credentials"]) {
    const list = raw[section];
    if (Array.isArray(list)) list.forEach((item, i) => check(item, KNOWN_KEYS[section] ?? [], `${section}[${i}]`));
  }
  return out;
}

function normalize(raw: Raw, file: string, warnings: string[]): Manifest {
  const network = (raw.network ?? {}) as Raw;
  const resources = (raw.resources ?? {}) as Raw;
  const sandbox = (raw.sandbox ?? {}) as Raw;
  const tools = ((raw.tools ?? []) as Raw[]).map((t): ManifestTool => ({
    name: t.name as string,
    description: t.description as string,
    inputSchema: t.input_schema as Record<string, unknown>,
    requiresConfirmation: t.requires_confirmation === true,
    ...(t.recommended_policy === undefined ? {} : { recommendedPolicy: t.recommended_policy as ManifestPolicy }),
    terminalOnSuccess: t.terminal_on_success === true,
    streaming: t.streaming === true,
    ...(t.semantics !== null && typeof t.semantics === "object"
      ? { semantics: t.semantics as Record<string, unknown> }
      : {}),
  }));
  const credentials = ((raw.credentials ?? []) as Raw[]).map((c): CredentialSpec => ({
    name: c.name as string,
    scope: c.scope as "system" | "user",
    credentialType: "secret",
    required: c.required !== false,
    description: typeof c.description === "string" ? c.description.trim() : "",
  }));
  return {
    id: raw.id as string,
    class: (raw.class ?? "tool") as Manifest["class"],
    ...(typeof raw.image === "string" ? { image: raw.image } : {}),
    toolSource: (raw.tool_source ?? "manifest") as Manifest["toolSource"],
    discoveryToolName: (raw.discovery_tool_name ?? "list_tools") as string,
    tools,
    network: {
      mode: (network.mode ?? "none") as Manifest["network"]["mode"],
      hosts: (network.hosts ?? []) as string[],
    },
    filesystem: (raw.filesystem ?? "none") as Manifest["filesystem"],
    sandbox: {
      readOnly: (sandbox.read_only ?? []) as string[],
      writable: (sandbox.writable ?? []) as string[],
      sockets: (sandbox.sockets ?? []) as string[],
    },
    credentials,
    resources: {
      maxMemoryMb: (resources.max_memory_mb as number | undefined) ?? RESOURCE_DEFAULTS.maxMemoryMb,
      maxCpuFraction: (resources.max_cpu_fraction as number | undefined) ?? RESOURCE_DEFAULTS.maxCpuFraction,
      maxCpuSeconds: (resources.max_cpu_seconds as number | undefined) ?? RESOURCE_DEFAULTS.maxCpuSeconds,
      pidsLimit: (resources.pids_limit as number | undefined) ?? RESOURCE_DEFAULTS.pidsLimit,
      ...(typeof resources.max_file_size_mb === "number" ? { maxFileSizeMb: resources.max_file_size_mb } : {}),
    },
    file,
    warnings,
  };
}
