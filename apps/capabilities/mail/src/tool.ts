import nodemailer from "nodemailer";
import type { ToolContext, ToolDefinition } from "@palisade/capability-sdk";
import { ATTACHMENT_ITEM_SCHEMA, ToolError } from "@palisade/capability-sdk";
import { smtpSettings } from "./smtp.js";

/** Most recipients (to + cc) of one message. */
export const MAX_RECIPIENTS = 50;
/** Largest total attachment size of one message. */
export const MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;
const SEND_TIMEOUT_MS = 60_000;

type Attachment = { capability_artifact_id?: string; artifact_id?: string; filename?: string; mime_type?: string };
type Args = {
  to: string | string[];
  cc?: string | string[];
  subject: string;
  body: string;
  attachments?: Attachment[];
};

const ADDRESS = /^[^\s@<>,;"]+@[^\s@<>,;"]+\.[^\s@<>,;"]+$/;
const addressList = {
  oneOf: [
    { type: "string", minLength: 3 },
    { type: "array", minItems: 1, items: { type: "string", minLength: 3 } },
  ],
};

/**
 * The send_email tool. With `proxy` (the sandbox's egress proxy, `http://127.0.0.1:PORT`) the
 * SMTP connection is a CONNECT tunnel through it: the proxy resolves the SMTP host and refuses
 * hosts outside the allowlist and private addresses; TLS still runs end to end with the server.
 */
export function sendEmailTool(options: { proxy?: string } = {}): ToolDefinition {
  return {
    name: "send_email",
    description:
      "Send a plain-text email through the configured SMTP server. `to` and `cc` take one address or a list; " +
      "`attachments` takes artifacts ([{artifact_id}]) produced by other tools, sent as file attachments.",
    inputSchema: {
      type: "object",
      properties: {
        to: { ...addressList, description: "Recipient address(es)." },
        cc: { ...addressList, description: "Copy recipient address(es)." },
        subject: { type: "string", maxLength: 500, description: "Subject line." },
        body: { type: "string", description: "Plain-text message body." },
        attachments: {
          type: "array",
          maxItems: 10,
          items: ATTACHMENT_ITEM_SCHEMA,
          description: "Artifacts to attach.",
        },
      },
      required: ["to", "subject", "body"],
      additionalProperties: false,
    },
    async handler(args: Args, ctx: ToolContext) {
      const smtp = smtpSettings(ctx.config);
      const to = addresses("to", args.to);
      const cc = args.cc === undefined ? [] : addresses("cc", args.cc);
      if (to.length + cc.length > MAX_RECIPIENTS)
        throw new ToolError(`too many recipients (${to.length + cc.length}); at most ${MAX_RECIPIENTS}`, {
          code: "invalid_arguments",
        });
      if (/[\r\n]/.test(args.subject))
        throw new ToolError("the subject must be one line", { code: "invalid_arguments" });

      let total = 0;
      const attachments = (args.attachments ?? []).map((att, i) => {
        const id = att.capability_artifact_id ?? att.artifact_id;
        if (!id) throw new ToolError(`attachments[${i}] has no artifact_id`, { code: "invalid_arguments" });
        const input = ctx.artifacts.getInput(id);
        if (!input)
          throw new ToolError(
            `attachments[${i}]: artifact ${id} is not available to this capability (unknown or expired); pass the artifact_id of a stored artifact`,
            { code: "artifact_not_found" },
          );
        total += input.data.byteLength;
        return {
          filename: input.filename || att.filename || `attachment-${i + 1}`,
          content: Buffer.from(input.data),
          contentType: input.mimeType || att.mime_type,
        };
      });
      if (total > MAX_ATTACHMENT_BYTES)
        throw new ToolError(`attachments total ${total} bytes; at most ${MAX_ATTACHMENT_BYTES}`, { code: "too_large" });

      const transport = nodemailer.createTransport({
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? "" } : undefined,
        connectionTimeout: 15_000,
        greetingTimeout: 15_000,
        socketTimeout: SEND_TIMEOUT_MS,
        ...(options.proxy ? { proxy: options.proxy } : {}),
      });
      const onAbort = (): void => transport.close();
      ctx.signal.addEventListener("abort", onAbort, { once: true });
      try {
        const info = await transport.sendMail({
          from: smtp.from,
          to,
          cc: cc.length ? cc : undefined,
          subject: args.subject,
          text: args.body,
          attachments,
        });
        return {
          ok: true,
          message_id: info.messageId,
          accepted: info.accepted.map(String),
          rejected: info.rejected.map(String),
          attachments: attachments.map((a) => ({ filename: a.filename, size_bytes: a.content.length })),
        };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const why = ctx.signal.aborted
          ? "the call was cancelled"
          : options.proxy && /Invalid response from proxy: 403/.test(message)
            ? "the sandbox's egress proxy refused the connection (the SMTP host is outside this capability's network allowlist, or resolves to a private address; the Engine log says which)"
            : message;
        throw new ToolError(`sending the email through ${smtp.host}:${smtp.port} failed: ${why}`, {
          code: "smtp_error",
        });
      } finally {
        ctx.signal.removeEventListener("abort", onAbort);
        transport.close();
      }
    },
  };
}

function addresses(field: string, value: string | string[]): string[] {
  const list = (Array.isArray(value) ? value : value.split(/[,;]/)).map((s) => s.trim()).filter(Boolean);
  const bad = list.filter((a) => !ADDRESS.test(a));
  if (list.length === 0 || bad.length > 0) {
    throw new ToolError(
      `invalid ${field} address${bad.length > 1 ? "es" : ""}: ${bad.map((b) => JSON.stringify(b)).join(", ") || "(none)"}; give plain addresses like alice@example.com`,
      { code: "invalid_arguments" },
    );
  }
  return list;
}
