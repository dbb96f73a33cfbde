import { ToolError } from "@palisade/capability-sdk";

/** The credentials the manifest declares; the Engine passes them in config_json. */
export const SMTP_CREDENTIALS = ["SMTP_HOST", "SMTP_PORT", "SMTP_USER", "SMTP_PASSWORD", "SMTP_FROM"] as const;

export interface SmtpSettings {
  host: string;
  port: number;
  /** Implicit TLS (port 465); other ports upgrade with STARTTLS when the server offers it. */
  secure: boolean;
  user: string | undefined;
  password: string | undefined;
  from: string;
}

/** Reads the SMTP settings from config_json; throws a ToolError naming what is missing. */
export function smtpSettings(config: Record<string, unknown>): SmtpSettings {
  const get = (key: string): string | undefined => {
    const v = config[key];
    if (v === undefined || v === null || v === "") return undefined;
    return typeof v === "number" ? String(v) : typeof v === "string" ? v.trim() : undefined;
  };
  const host = get("SMTP_HOST");
  const user = get("SMTP_USER");
  const from = get("SMTP_FROM") ?? (user?.includes("@") ? user : undefined);
  const missing = [!host && "SMTP_HOST", !from && "SMTP_FROM"].filter(Boolean);
  if (!host || !from) {
    throw new ToolError(
      `mail is not configured: missing ${missing.join(", ")}; set the system credentials SMTP_HOST, SMTP_PORT, SMTP_USER, SMTP_PASSWORD and SMTP_FROM`,
      { code: "not_configured" },
    );
  }
  const portText = get("SMTP_PORT") ?? "587";
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new ToolError(`mail is misconfigured: SMTP_PORT "${portText}" is not a port number`, {
      code: "not_configured",
    });
  }
  return { host, port, secure: port === 465, user, password: get("SMTP_PASSWORD"), from };
}
