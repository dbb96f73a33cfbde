import type { ToolContext, ToolDefinition } from "@palisade/capability-sdk";
import { ATTACHMENT_ITEM_SCHEMA, ToolError } from "@palisade/capability-sdk";
import { MAX_TEXT_CHARS, extractText } from "./extract.js";
import { pdfFilename, renderPdf } from "./render.js";
import type { Section } from "./render.js";

/** Most characters of title + section text accepted by create_pdf. */
export const MAX_INPUT_CHARS = 500_000;

type CreateArgs = { title: string; sections: Section[]; filename?: string };
type Attachment = { capability_artifact_id?: string; artifact_id?: string; filename?: string };
type ReadArgs = { attachments: Attachment[] };

export const createPdf: ToolDefinition = {
  name: "create_pdf",
  description:
    'Create a PDF document from a title and sections (heading + text; blank lines separate paragraphs, lines starting with "- " become bullets). ' +
    "Returns the PDF as an artifact whose artifact_id can be passed to other tools, e.g. as an email attachment. Latin characters only.",
  inputSchema: {
    type: "object",
    properties: {
      title: { type: "string", minLength: 1, description: "Document title." },
      sections: {
        type: "array",
        minItems: 1,
        items: {
          type: "object",
          properties: { heading: { type: "string" }, content: { type: "string" } },
          required: ["heading", "content"],
          additionalProperties: false,
        },
        description: "Sections in order.",
      },
      filename: { type: "string", description: 'File name, e.g. "report.pdf" (default: from the title).' },
    },
    required: ["title", "sections"],
    additionalProperties: false,
  },
  async handler(args: CreateArgs, ctx: ToolContext) {
    const size = args.title.length + args.sections.reduce((n, s) => n + s.heading.length + s.content.length, 0);
    if (size > MAX_INPUT_CHARS)
      throw new ToolError(`the document text is ${size} characters; at most ${MAX_INPUT_CHARS} fit in one PDF`, {
        code: "too_large",
      });
    const bytes = await renderPdf(args);
    const stored = ctx.artifacts.storeOutput(bytes, {
      filename: pdfFilename(args.filename, args.title),
      mimeType: "application/pdf",
    });
    return { ok: true, ...stored };
  },
};

export const readPdf: ToolDefinition = {
  name: "read_pdf",
  description:
    "Extract the text of PDF attachments (pass artifacts as attachments: [{artifact_id}]). Returns the text of each, pages separated by a form feed; long texts are cut.",
  inputSchema: {
    type: "object",
    properties: {
      attachments: {
        type: "array",
        minItems: 1,
        maxItems: 10,
        items: ATTACHMENT_ITEM_SCHEMA,
        description: "PDF artifacts to read.",
      },
    },
    required: ["attachments"],
    additionalProperties: false,
  },
  async handler(args: ReadArgs, ctx: ToolContext) {
    const documents = [];
    for (const [i, att] of args.attachments.entries()) {
      const id = att.capability_artifact_id ?? att.artifact_id;
      if (!id) throw new ToolError(`attachments[${i}] has no artifact_id`, { code: "invalid_arguments" });
      const input = ctx.artifacts.getInput(id);
      if (!input)
        throw new ToolError(
          `attachments[${i}]: artifact ${id} is not available to this capability (unknown or expired); pass the artifact_id of a stored artifact`,
          { code: "artifact_not_found" },
        );
      if (!Buffer.from(input.data.subarray(0, 1024)).includes("%PDF-")) {
        throw new ToolError(`attachments[${i}] (${input.filename}) is not a PDF (${input.mimeType}, no %PDF- header)`, {
          code: "not_a_pdf",
        });
      }
      let extracted;
      try {
        extracted = await extractText(input.data);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        throw new ToolError(
          `cannot read ${input.filename}: ${/password/i.test(why) ? "the PDF is encrypted with a password" : why}`,
          { code: "unreadable_pdf" },
        );
      }
      const doc: Record<string, unknown> = { filename: input.filename, pages: extracted.pages, text: extracted.text };
      if (extracted.truncated) {
        doc.truncated = true;
        doc.note = `text cut after ${MAX_TEXT_CHARS} characters`;
      }
      if (extracted.text.trim() === "")
        doc.note = "no text found: the PDF may contain only scanned images (no OCR here)";
      documents.push(doc);
    }
    return { documents };
  },
};
