import PDFDocument from "pdfkit";

export interface Section {
  heading: string;
  content: string;
}

export interface PdfSpec {
  title: string;
  sections: Section[];
}

/**
 * Renders a simple report: the title, then each section's heading and content. Content is
 * split into paragraphs on blank lines; lines starting with "- " or "* " become bullets.
 * Uses the standard Helvetica fonts, which cover Latin-1 (WinAnsi) characters only.
 */
export function renderPdf(spec: PdfSpec, now: Date = new Date()): Promise<Buffer> {
  const doc = new PDFDocument({
    size: "A4",
    margin: 56,
    info: { Title: spec.title, Producer: "Palisade documents", CreationDate: now },
    compress: true,
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on("data", (c: Buffer) => chunks.push(c));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
  });
  doc.font("Helvetica-Bold").fontSize(22).text(spec.title, { align: "left" });
  doc.moveDown(0.8);
  for (const section of spec.sections) {
    if (section.heading.trim()) {
      doc.font("Helvetica-Bold").fontSize(14).text(section.heading);
      doc.moveDown(0.3);
    }
    doc.font("Helvetica").fontSize(11);
    for (const paragraph of section.content.split(/\n\s*\n/)) {
      const lines = paragraph.split("\n").filter((l) => l.trim() !== "");
      if (lines.length === 0) continue;
      if (lines.every((l) => /^\s*[-*]\s+/.test(l))) {
        doc.list(
          lines.map((l) => l.replace(/^\s*[-*]\s+/, "")),
          { bulletRadius: 2, textIndent: 12 },
        );
      } else {
        doc.text(lines.join(" "), { align: "left" });
      }
      doc.moveDown(0.6);
    }
    doc.moveDown(0.4);
  }
  doc.end();
  return done;
}

/** A safe file name ending in .pdf: from `requested`, else from the title. */
export function pdfFilename(requested: string | undefined, title: string): string {
  const raw = (requested ?? "").split(/[\\/]/).pop() ?? "";
  const base = (raw || title)
    .replace(/\.pdf$/i, "")
    .normalize("NFKD")
    .replace(/[^\w.-]+/g, "_")
    .replace(/^[_.]+|[_.]+$/g, "")
    .slice(0, 80);
  return `${base || "document"}.pdf`;
}
