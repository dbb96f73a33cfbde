export { createMailCapability } from "./capability.js";
export type { MailCapabilityOptions } from "./capability.js";
export { smtpSettings, SMTP_CREDENTIALS } from "./smtp.js";
export type { SmtpSettings } from "./smtp.js";
export { command, manifestPath, promptPath } from "./launch.js";
