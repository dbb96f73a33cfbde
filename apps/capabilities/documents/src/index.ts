export { createDocumentsCapability } from "./capability.js";
export { renderPdf, pdfFilename } from "./render.js";
export type { PdfSpec, Section } from "./render.js";
export { extractText } from "./extract.js";
export type { ExtractedText } from "./extract.js";
export { command, manifestPath, promptPath } from "./launch.js";
