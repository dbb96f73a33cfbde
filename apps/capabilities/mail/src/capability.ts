import { defineCapability } from "@palisade/capability-sdk";
import type { CapabilityDefinition } from "@palisade/capability-sdk";
import { sendEmailTool } from "./tool.js";

export interface MailCapabilityOptions {
  /** The sandbox's egress proxy URL: SMTP goes through it as a CONNECT tunnel. */
  proxy?: string;
}

/** The `mail` capability: send email over SMTP with the system's credentials. */
export function createMailCapability(options: MailCapabilityOptions = {}): CapabilityDefinition {
  return defineCapability({ id: "mail", tools: [sendEmailTool(options)] });
}
