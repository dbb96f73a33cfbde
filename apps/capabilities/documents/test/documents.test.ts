import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDocumentsCapability, extractText, manifestPath, pdfFilename } from "@palisade/capability-documents";
import { manifestTools, serveForTest as start } from "@palisade/capability-sdk/testing";
import type { Harness } from "@palisade/capability-sdk/testing";

let h: Harness;

beforeAll(async () => {
  h = await start(createDocumentsCapability());
});
afterAll(async () => {
  await h.stop();
});

async function download(id: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of h.client.downloadOutputArtifact({ capabilityArtifactId: id })) {
    expect(chunk.error).toBe("");
    parts.push(Buffer.from(chunk.data));
  }
  return Buffer.concat(parts);
}

async function upload(data: Uint8Array, filename: string, mimeType: string): Promise<string> {
  const res = await h.client.uploadInputArtifact([{ filename, mimeType, data }]);
  expect(res.error).toBe("");
  return res.capabilityArtifactId;
}

const report = {
  title: "Marine Biology",
  sections: [
    { heading: "Whales", content: "Whales are large marine mammals.\n\nThey sing — and travel far (€0 fare)." },
    { heading: "Reefs", content: "- corals\n- fish\n- algae" },
  ],
};

describe("create_pdf", () => {
  it("returns a real PDF as an output artifact whose text is the document", async () => {
    const { result, error } = await h.invoke("create_pdf", report);
    expect(error).toBe("");
    const artifact = (
      result as {
        artifact: { capability_artifact_id: string; filename: string; mime_type: string; size_bytes: number };
      }
    ).artifact;
    expect(artifact).toMatchObject({ filename: "Marine_Biology.pdf", mime_type: "application/pdf" });
    const bytes = await download(artifact.capability_artifact_id);
    expect(bytes.length).toBe(artifact.size_bytes);
    expect(bytes.subarray(0, 5).toString()).toBe("%PDF-");
    const { text, pages } = await extractText(bytes);
    expect(pages).toBe(1);
    for (const piece of [
      "Marine Biology",
      "Whales",
      "Whales are large marine mammals.",
      "They sing — and travel far (€0 fare).",
      "Reefs",
      "corals",
      "algae",
    ]) {
      expect(text).toContain(piece);
    }
  });

  it("flows long content onto several pages", async () => {
    const long = Array.from({ length: 40 }, (_, i) => ({
      heading: `Part ${i + 1}`,
      content: "Lorem ipsum dolor sit amet. ".repeat(20),
    }));
    const { result } = await h.invoke("create_pdf", { title: "Long", sections: long, filename: "long.pdf" });
    const { artifact } = result as { artifact: { capability_artifact_id: string } };
    const { pages, text } = await extractText(await download(artifact.capability_artifact_id));
    expect(pages).toBeGreaterThan(3);
    expect(text).toContain("Part 40");
  });

  it("makes safe file names", () => {
    expect(pdfFilename("../../etc/evil.pdf", "x")).toBe("evil.pdf");
    expect(pdfFilename(undefined, "Q3 report: sales/costs")).toBe("Q3_report_sales_costs.pdf");
    expect(pdfFilename("notes", "x")).toBe("notes.pdf");
    expect(pdfFilename("", "***")).toBe("document.pdf");
  });

  it("rejects arguments that do not match the schema", async () => {
    expect((await h.invoke("create_pdf", { title: "x", sections: [] })).error).toMatch(
      /^invalid arguments: create_pdf: arguments\.sections: must list at least one item, got a list/,
    );
  });
});

describe("read_pdf", () => {
  it("extracts the text of an uploaded PDF, by capability_artifact_id or artifact_id", async () => {
    const made = await h.invoke("create_pdf", report);
    const pdf = await download(
      (made.result as { artifact: { capability_artifact_id: string } }).artifact.capability_artifact_id,
    );
    const id = await upload(pdf, "marine.pdf", "application/pdf");
    const rewritten = await h.invoke("read_pdf", {
      attachments: [
        { capability_artifact_id: id, filename: "marine.pdf", mime_type: "application/pdf", size_bytes: pdf.length },
      ],
    });
    expect(rewritten.error).toBe("");
    const [doc] = (rewritten.result as { documents: { filename: string; pages: number; text: string }[] }).documents;
    expect(doc).toMatchObject({ filename: "marine.pdf", pages: 1 });
    expect(doc?.text).toContain("Whales are large marine mammals.");
    const direct = await h.invoke("read_pdf", { attachments: [{ artifact_id: id }] });
    expect((direct.result as { documents: { text: string }[] }).documents[0]?.text).toBe(doc?.text);
  });

  it("explains unknown artifacts, non-PDFs and broken PDFs", async () => {
    expect((await h.invoke("read_pdf", { attachments: [{ artifact_id: "nope" }] })).error).toMatch(
      /artifact nope is not available/,
    );
    expect((await h.invoke("read_pdf", { attachments: [{}] })).error).toMatch(/attachments\[0\] has no artifact_id/);
    const text = await upload(new TextEncoder().encode("just text"), "a.txt", "text/plain");
    expect((await h.invoke("read_pdf", { attachments: [{ artifact_id: text }] })).error).toMatch(
      /a\.txt\) is not a PDF/,
    );
    const broken = await upload(new TextEncoder().encode("%PDF-1.4\ngarbage"), "broken.pdf", "application/pdf");
    expect((await h.invoke("read_pdf", { attachments: [{ artifact_id: broken }] })).error).toMatch(
      /^cannot read broken\.pdf: /,
    );
  });
});

describe("manifest.yaml", () => {
  it("declares the same tools as the code, both allowed", async () => {
    const { manifest, tools } = await manifestTools(manifestPath);
    expect(manifest).toMatchObject({ id: "documents", network: { mode: "none" } });
    const cap = createDocumentsCapability();
    const semantics: Record<string, unknown> = {
      create_pdf: { kind: "document-write", paths: { filename: "write" } },
      read_pdf: { kind: "document-read" },
    };
    expect(tools).toEqual(
      cap.tools.map((t) => ({
        name: t.name,
        description: t.description,
        input_schema: t.inputSchema,
        recommended_policy: "allow",
        semantics: semantics[t.name],
      })),
    );
  });
});
