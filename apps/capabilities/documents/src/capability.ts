import { defineCapability } from "@palisade/capability-sdk";
import type { CapabilityDefinition } from "@palisade/capability-sdk";
import { createPdf, readPdf } from "./tools.js";

/** The `documents` capability: create PDFs and read their text. */
export function createDocumentsCapability(): CapabilityDefinition {
  return defineCapability({ id: "documents", tools: [createPdf, readPdf] });
}
