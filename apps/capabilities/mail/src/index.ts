import { fileURLToPath } from "node:url";

export { createMailCapability } from "./capability.js";
export { smtpSettings, SMTP_CREDENTIALS } from "./smtp.js";
export type { SmtpSettings } from "./smtp.js";

/** The Selu manifest of this capability. */
export const manifestPath = fileURLToPath(new URL("../manifest.yaml", import.meta.url));
/** The capability's prompt, added to the system prompt when its tools are loaded. */
export const promptPath = fileURLToPath(new URL("../prompt.md", import.meta.url));
/**
 * How the Engine launches it: Node on the compiled entry point (`dist/main.js`, also when this
 * module is loaded from its sources), which listens on env PORT (HOST, default 127.0.0.1).
 */
export const command: readonly string[] = [process.execPath, fileURLToPath(new URL("../dist/main.js", import.meta.url))];
