import { createRequire } from "node:module";
import * as path from "node:path";
import { pathToFileURL } from "node:url";

/** Characters of extracted text returned per document; the rest is cut with a note. */
export const MAX_TEXT_CHARS = 200_000;

export interface ExtractedText {
  pages: number;
  text: string;
  truncated: boolean;
}

const require = createRequire(import.meta.url);
const pdfjsRoot = path.dirname(require.resolve("pdfjs-dist/package.json"));

/** Extracts the text of a PDF page by page (pages separated by a form feed line). */
export async function extractText(data: Uint8Array): Promise<ExtractedText> {
  const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs");
  const task = pdfjs.getDocument({
    // pdf.js takes ownership of (and detaches) the buffer it is given: pass a copy.
    data: new Uint8Array(data),
    isEvalSupported: false,
    useSystemFonts: false,
    verbosity: 0,
    standardFontDataUrl: `${pathToFileURL(path.join(pdfjsRoot, "standard_fonts")).href}/`,
  });
  const doc = await task.promise;
  try {
    const pages: string[] = [];
    let length = 0;
    let truncated = false;
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let text = "";
      for (const item of content.items) {
        if ("str" in item) text += item.str + (item.hasEOL ? "\n" : "");
      }
      page.cleanup();
      pages.push(text.trim());
      length += text.length;
      if (length > MAX_TEXT_CHARS) {
        truncated = true;
        break;
      }
    }
    let text = pages.join("\n\f\n");
    if (text.length > MAX_TEXT_CHARS) text = text.slice(0, MAX_TEXT_CHARS);
    return { pages: doc.numPages, text, truncated };
  } finally {
    await doc.destroy();
  }
}
