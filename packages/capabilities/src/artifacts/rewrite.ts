/**
 * Pure rewriting of tool results and arguments around artifacts, as Selu capabilities return and take them.
 *
 * Output: a result carrying capability-side artifact ids — top-level `artifact_id` (the seed's
 * form) or `artifact`/`artifacts[]` objects with `capability_artifact_id` (the deployed form) —
 * is rewritten so each becomes `{artifact_id, filename, mime_type, size_bytes}` of the copy
 * Palisade stored. Input: `attachments[]` items naming a Palisade artifact are rewritten to
 * the `capability_artifact_id` the target capability returned on upload.
 */

/** What the model sees for a stored artifact. */
export interface ArtifactRef {
  artifactId: string;
  filename: string;
  mimeType: string;
  sizeBytes: number;
}

/** An artifact a result points at, before it is downloaded. */
export interface OutputArtifactSource {
  capabilityArtifactId: string;
  filename?: string;
  mimeType?: string;
}

type Obj = Record<string, unknown>;
const MAX_DEPTH = 32;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function capId(v: unknown): string | undefined {
  return isObj(v) && typeof v.capability_artifact_id === "string" && v.capability_artifact_id !== ""
    ? v.capability_artifact_id
    : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

function sourceOf(o: Obj, id: string): OutputArtifactSource {
  const filename = str(o.filename);
  const mimeType = str(o.mime_type);
  return { capabilityArtifactId: id, ...(filename ? { filename } : {}), ...(mimeType ? { mimeType } : {}) };
}

export function refToJson(ref: ArtifactRef): Obj {
  return { artifact_id: ref.artifactId, filename: ref.filename, mime_type: ref.mimeType, size_bytes: ref.sizeBytes };
}

const ARTIFACT_FIELDS = new Set(["capability_artifact_id", "artifact_id", "filename", "mime_type", "size_bytes"]);

function withRef(original: Obj, ref: ArtifactRef): Obj {
  const extras = Object.fromEntries(Object.entries(original).filter(([k]) => !ARTIFACT_FIELDS.has(k)));
  return { ...refToJson(ref), ...extras };
}

/** Top-level `artifact_id` (the Selu artifact convention), unless the result already carries an `artifact` object. */
function seedForm(result: unknown): Obj | undefined {
  return isObj(result) && str(result.artifact_id) && !isObj(result.artifact) ? result : undefined;
}

/** Lists the capability artifacts a result refers to, each id once, in order of appearance. */
export function findOutputArtifacts(result: unknown): OutputArtifactSource[] {
  const found = new Map<string, OutputArtifactSource>();
  const top = seedForm(result);
  if (top) found.set(top.artifact_id as string, sourceOf(top, top.artifact_id as string));
  const walk = (v: unknown, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (Array.isArray(v)) {
      for (const item of v) walk(item, depth + 1);
      return;
    }
    if (!isObj(v)) return;
    const single = capId(v.artifact);
    if (single && !found.has(single)) found.set(single, sourceOf(v.artifact as Obj, single));
    if (Array.isArray(v.artifacts)) {
      for (const item of v.artifacts) {
        const id = capId(item);
        if (id && !found.has(id)) found.set(id, sourceOf(item as Obj, id));
      }
    }
    for (const child of Object.values(v)) walk(child, depth + 1);
  };
  walk(result, 0);
  return [...found.values()];
}

/** Replaces every capability artifact reference with the stored artifact's metadata. */
export function rewriteOutput(result: unknown, stored: ReadonlyMap<string, ArtifactRef>): unknown {
  const walk = (v: unknown, depth: number): unknown => {
    if (depth > MAX_DEPTH) return v;
    if (Array.isArray(v)) return v.map((item) => walk(item, depth + 1));
    if (!isObj(v)) return v;
    const out: Obj = {};
    for (const [key, child] of Object.entries(v)) {
      const single = key === "artifact" ? capId(child) : undefined;
      const ref = single ? stored.get(single) : undefined;
      if (ref) out[key] = withRef(child as Obj, ref);
      else if (key === "artifacts" && Array.isArray(child)) {
        out[key] = child.map((item) => {
          const id = capId(item);
          const r = id ? stored.get(id) : undefined;
          return r ? withRef(item as Obj, r) : walk(item, depth + 2);
        });
      } else out[key] = walk(child, depth + 1);
    }
    return out;
  };
  const top = seedForm(result);
  const topRef = top ? stored.get(top.artifact_id as string) : undefined;
  const rewritten = walk(result, 0);
  if (!top || !topRef || !isObj(rewritten)) return rewritten;
  const { artifact_id: _a, filename: _f, mime_type: _m, size_bytes: _s, ...rest } = rewritten;
  return { ...rest, artifact: refToJson(topRef) };
}

/** An `attachments[]` item that may name a Palisade artifact. */
export interface InputAttachment {
  index: number;
  artifactId: string;
  /**
   * `artifact_id`: must exist (else the call fails). `capability_artifact_id`: used only when it
   * equals an artifact this session owns; otherwise it is the capability's own id
   * and passes through untouched.
   */
  via: "artifact_id" | "capability_artifact_id";
}

export function findInputAttachments(args: unknown): InputAttachment[] {
  if (!isObj(args) || !Array.isArray(args.attachments)) return [];
  const out: InputAttachment[] = [];
  args.attachments.forEach((item, index) => {
    if (!isObj(item)) return;
    const direct = str(item.artifact_id);
    if (direct) out.push({ index, artifactId: direct, via: "artifact_id" });
    else {
      const cap = str(item.capability_artifact_id);
      if (cap) out.push({ index, artifactId: cap, via: "capability_artifact_id" });
    }
  });
  return out;
}

/** What the target capability gave back for an uploaded attachment. */
export interface UploadedAttachment {
  capabilityArtifactId: string;
  filename: string;
  mimeType: string;
  sizeBytes: number;
}

/** Rewrites `attachments[index]` to `{capability_artifact_id, filename, mime_type, size_bytes}`. */
export function rewriteInput(args: unknown, uploaded: ReadonlyMap<number, UploadedAttachment>): unknown {
  if (uploaded.size === 0 || !isObj(args) || !Array.isArray(args.attachments)) return args;
  const attachments = args.attachments.map((item: unknown, index) => {
    const up = uploaded.get(index);
    if (!up || !isObj(item)) return item;
    const extras = Object.fromEntries(Object.entries(item).filter(([k]) => !ARTIFACT_FIELDS.has(k)));
    return {
      capability_artifact_id: up.capabilityArtifactId,
      filename: up.filename,
      mime_type: up.mimeType,
      size_bytes: up.sizeBytes,
      ...extras,
    };
  });
  return { ...args, attachments };
}
