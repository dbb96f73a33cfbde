import { posix } from "node:path";
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/client";
import type { ArtifactRef } from "../artifacts/rewrite.js";
import { refToJson } from "../artifacts/rewrite.js";
import type { ArtifactOwner, ArtifactStore } from "../artifacts/store.js";
import { safeFilename } from "../artifacts/export.js";

/** Reads a linked resource (`resources/read`); undefined when the server cannot. */
export type ReadResource = (
  uri: string,
  signal: AbortSignal,
) => Promise<{ data: Uint8Array; mimeType?: string } | undefined>;

export interface ConvertDeps {
  artifacts: ArtifactStore;
  owner: ArtifactOwner;
  /** `mcp:<id>`, recorded with each artifact. */
  source: string;
  /** Tool name, used to name unnamed files. */
  tool: string;
  readResource: ReadResource;
  signal: AbortSignal;
}

/** At most this many resource links of one result are fetched; the rest stay links. */
export const MAX_LINKED_RESOURCES = 10;

export interface Converted {
  /** What the model sees: the text, or JSON naming the stored artifacts. */
  content: string;
  result: unknown;
  artifacts: ArtifactRef[];
}

const EXT: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/svg+xml": "svg",
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/mpeg": "mp3",
  "audio/ogg": "ogg",
  "text/plain": "txt",
  "application/json": "json",
  "application/pdf": "pdf",
};

function nameFor(tool: string, index: number, mimeType: string, uri?: string): string {
  const generated = `${tool}-${index + 1}.${EXT[mimeType] ?? "bin"}`;
  if (!uri || !URL.canParse(uri)) return generated;
  const path = new URL(uri).pathname;
  let base = posix.basename(path);
  try {
    base = posix.basename(decodeURIComponent(path));
  } catch {
    // malformed escapes: the raw name
  }
  return base ? safeFilename(base, generated) : generated;
}

function base64(data: string): Uint8Array {
  const buf = Buffer.from(data, "base64");
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/**
 * A tools/call result as the model gets it: text blocks as text; images, audio and embedded
 * or linked resources stored as artifacts of the session and referenced by id, never inlined.
 * Only text blocks: the joined text. Anything else: JSON `{content: [...]}`.
 */
export async function convertResult(result: CallToolResult, deps: ConvertDeps): Promise<Converted> {
  const blocks: ContentBlock[] = Array.isArray(result.content) ? result.content : [];
  const artifacts: ArtifactRef[] = [];
  const store = async (
    data: Uint8Array,
    mimeType: string,
    i: number,
    uri?: string,
  ): Promise<Record<string, unknown>> => {
    const filename = nameFor(deps.tool, i, mimeType, uri);
    const meta = await deps.artifacts.put(data, { filename, mimeType, owner: deps.owner, source: deps.source });
    const ref: ArtifactRef = { artifactId: meta.artifactId, filename, mimeType, sizeBytes: meta.sizeBytes };
    artifacts.push(ref);
    return refToJson(ref);
  };
  let links = 0;
  const out: Record<string, unknown>[] = [];
  for (const [i, block] of blocks.entries()) {
    switch (block.type) {
      case "text":
        out.push({ type: "text", text: block.text });
        break;
      case "image":
      case "audio":
        out.push({ type: block.type, artifact: await store(base64(block.data), block.mimeType, i) });
        break;
      case "resource": {
        const r = block.resource;
        const mimeType = r.mimeType ?? ("text" in r ? "text/plain" : "application/octet-stream");
        const data = "text" in r ? new TextEncoder().encode(r.text) : base64(r.blob);
        out.push({ type: "resource", uri: r.uri, artifact: await store(data, mimeType, i, r.uri) });
        break;
      }
      case "resource_link": {
        const link: Record<string, unknown> = {
          type: "resource_link",
          uri: block.uri,
          name: block.name,
          ...(block.description ? { description: block.description } : {}),
        };
        if (links++ < MAX_LINKED_RESOURCES) {
          try {
            const read = await deps.readResource(block.uri, deps.signal);
            if (read)
              link.artifact = await store(
                read.data,
                read.mimeType ?? block.mimeType ?? "application/octet-stream",
                i,
                block.uri,
              );
          } catch (err) {
            if (deps.signal.aborted) throw err;
            link.error = `could not read the resource: ${err instanceof Error ? err.message : String(err)}`;
          }
        }
        out.push(link);
        break;
      }
      default:
        out.push({
          type: (block as { type: string }).type,
          note: "content of this type is not supported by Palisade and was left out",
        });
    }
  }
  // Structured content goes to the model with the blocks: servers are asked to repeat it as
  // text, but the text is often a summary that leaves fields out.
  const structured = result.structuredContent;
  if (out.length === 0 && structured !== undefined)
    return { content: JSON.stringify(structured), result: structured, artifacts };
  if (out.every((b) => b.type === "text")) {
    const text = out.map((b) => b.text as string).join("\n");
    if (structured === undefined || repeats(text, structured)) return { content: text, result: text, artifacts };
    return {
      content: `${text}\n\nstructuredContent: ${JSON.stringify(structured)}`,
      result: { content: text, structuredContent: structured },
      artifacts,
    };
  }
  const json = { content: out, ...(structured === undefined ? {} : { structuredContent: structured }) };
  return { content: JSON.stringify(json), result: json, artifacts };
}

/** True when every value of the structured content already appears in the text. */
function repeats(text: string, structured: unknown): boolean {
  const leaves: string[] = [];
  const walk = (v: unknown): void => {
    if (v === null || v === undefined) return;
    if (typeof v === "object") for (const x of Array.isArray(v) ? v : Object.values(v)) walk(x);
    else leaves.push(typeof v === "string" ? v : JSON.stringify(v));
  };
  walk(structured);
  return leaves.every((l) => text.includes(l));
}

/** The text of an `isError` result, for the model. */
export function errorText(result: CallToolResult): string {
  const blocks: ContentBlock[] = Array.isArray(result.content) ? result.content : [];
  const text = blocks
    .flatMap((b) => (b.type === "text" ? [b.text] : []))
    .join("\n")
    .trim();
  return text || "the tool reported an error without a message";
}
