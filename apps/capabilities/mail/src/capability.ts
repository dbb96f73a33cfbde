import { defineCapability } from "@palisade/capability-sdk";
import type { CapabilityDefinition } from "@palisade/capability-sdk";
import { sendEmail } from "./tool.js";

/** The `mail` capability: send email over SMTP with the system's credentials. */
export function createMailCapability(): CapabilityDefinition {
  return defineCapability({ id: "mail", tools: [sendEmail] });
}
