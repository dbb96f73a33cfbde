import { describe, expect, it } from "vitest";
import { DiskArtifactStore } from "@palisade/capabilities";
import { convertResult, errorText } from "../src/mcp/results.js";
import type { ReadResource } from "../src/mcp/results.js";
import { owner, tempDir } from "./helpers.js";

const b64 = (s: string): string => Buffer.from(s).toString("base64");

function deps(readResource: ReadResource = async () => undefined, maxBytes?: number) {
  const artifacts = new DiskArtifactStore({ dir: tempDir(), ...(maxBytes ? { maxBytes } : {}) });
  return { artifacts, owner, source: "mcp:t", tool: "shot", readResource, signal: new AbortController().signal };
}

describe("MCP tool results as the model sees them", () => {
  it("text only: the joined text", async () => {
    const r = await convertResult(
      {
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      },
      deps(),
    );
    expect(r).toEqual({ content: "a\nb", result: "a\nb", artifacts: [] });
  });

  it("text and structured content: the model gets both (the text may not carry every field)", async () => {
    const r = await convertResult(
      { content: [{ type: "text", text: "Sunny in Oslo." }], structuredContent: { city: "Oslo", celsius: 21 } },
      deps(),
    );
    expect(r.content).toBe('Sunny in Oslo.\n\nstructuredContent: {"city":"Oslo","celsius":21}');
    expect(r.result).toEqual({ content: "Sunny in Oslo.", structuredContent: { city: "Oslo", celsius: 21 } });
  });

  it("structured content the text already carries in full is not given twice", async () => {
    const r = await convertResult(
      { content: [{ type: "text", text: "[DIR] notes" }], structuredContent: { content: "[DIR] notes" } },
      deps(),
    );
    expect(r.content).toBe("[DIR] notes");
  });

  it("an artifact and structured content: both in the JSON the model reads", async () => {
    const r = await convertResult(
      { content: [{ type: "image", data: b64("png"), mimeType: "image/png" }], structuredContent: { width: 1 } },
      deps(),
    );
    expect(JSON.parse(r.content)).toMatchObject({ content: [{ type: "image" }], structuredContent: { width: 1 } });
  });

  it("structured content alone is given as JSON", async () => {
    const r = await convertResult({ content: [], structuredContent: { temperature: 21 } }, deps());
    expect(r.content).toBe('{"temperature":21}');
  });

  it("audio and embedded blobs are stored, named from the URI or the tool, and referenced", async () => {
    const d = deps();
    const r = await convertResult(
      {
        content: [
          { type: "audio", data: b64("RIFF...."), mimeType: "audio/wav" },
          {
            type: "resource",
            resource: { uri: "file:///reports/q3%20final.pdf", mimeType: "application/pdf", blob: b64("%PDF-1.7") },
          },
          { type: "resource", resource: { uri: "note://x/", text: "plain words" } },
        ],
      },
      d,
    );
    expect(r.artifacts.map((a) => [a.filename, a.mimeType, a.sizeBytes])).toEqual([
      ["shot-1.wav", "audio/wav", 8],
      ["q3 final.pdf", "application/pdf", 8],
      ["shot-3.txt", "text/plain", 11],
    ]);
    const stored = await d.artifacts.read(r.artifacts[1]!.artifactId, owner);
    expect(new TextDecoder().decode(stored!.data)).toBe("%PDF-1.7");
    expect(r.content).not.toContain(b64("%PDF-1.7"));
    expect(JSON.parse(r.content)).toMatchObject({
      content: [
        { type: "audio", artifact: { artifact_id: r.artifacts[0]!.artifactId } },
        { type: "resource", uri: "file:///reports/q3%20final.pdf" },
        {},
      ],
    });
  });

  it("a resource link is read into an artifact; a failed read stays a link with the reason", async () => {
    const read: ReadResource = async (uri) => {
      if (uri.endsWith("ok.txt")) return { data: new TextEncoder().encode("linked"), mimeType: "text/plain" };
      throw new Error("no such resource");
    };
    const r = await convertResult(
      {
        content: [
          { type: "resource_link", uri: "test://static/ok.txt", name: "ok" },
          { type: "resource_link", uri: "test://static/gone.txt", name: "gone" },
        ],
      },
      deps(read),
    );
    expect(r.artifacts).toHaveLength(1);
    const blocks = (JSON.parse(r.content) as { content: Array<Record<string, unknown>> }).content;
    expect(blocks[0]).toMatchObject({ type: "resource_link", name: "ok", artifact: { filename: "ok.txt" } });
    expect(blocks[1]).toMatchObject({
      type: "resource_link",
      name: "gone",
      error: "could not read the resource: no such resource",
    });
  });

  it("an image over the artifact limit fails with the limit, not a crash", async () => {
    await expect(
      convertResult(
        { content: [{ type: "image", data: b64("x".repeat(2048)), mimeType: "image/png" }] },
        deps(undefined, 1024),
      ),
    ).rejects.toThrow(/over the 1 KiB limit/);
  });

  it("an error result's text, or a placeholder", () => {
    expect(
      errorText({
        content: [{ type: "text", text: "Access denied - path outside allowed directories" }],
        isError: true,
      }),
    ).toBe("Access denied - path outside allowed directories");
    expect(errorText({ content: [], isError: true })).toBe("the tool reported an error without a message");
  });
});
