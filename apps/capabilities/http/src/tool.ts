import * as path from "node:path";
import { TextDecoder } from "node:util";
import type { ToolContext, ToolDefinition } from "@palisade/capability-sdk";
import { guardedFetch } from "./fetch.js";
import type { FetchLimits, FetchResponse, Resolver } from "./fetch.js";
import { policyFromConfig } from "./policy.js";

/** Longest text body returned inline; the rest is cut with a note. */
export const MAX_TEXT_CHARS = 200_000;

const TEXT_TYPES =
  /^(text\/|application\/(json|xml|xhtml\+xml|javascript|ecmascript|x-www-form-urlencoded|ld\+json|yaml|x-yaml|toml|csv|graphql|problem\+json|rss\+xml|atom\+xml)|[^;]*\+(json|xml))/i;

type Args = { method: string; url: string; headers?: Record<string, string>; body?: string };

export interface HttpToolOptions {
  resolver: Resolver;
  limits: FetchLimits;
  proxy?: string;
}

export function httpRequestTool(options: HttpToolOptions): ToolDefinition {
  return {
    name: "http_request",
    description:
      "Make an HTTP or HTTPS request and return status, headers and body. Only public addresses (and hosts the configuration allows) can be reached. " +
      "Text bodies (HTML, JSON, XML, ...) are returned inline (long ones cut); binary bodies (images, PDFs, archives) are stored as an artifact. " +
      "Responses are capped at 5 MiB and 30 s; up to 5 redirects are followed.",
    inputSchema: {
      type: "object",
      properties: {
        method: {
          type: "string",
          enum: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
          description: "HTTP method.",
        },
        url: { type: "string", minLength: 1, description: "Absolute http:// or https:// URL." },
        headers: { type: "object", additionalProperties: { type: "string" }, description: "Request headers." },
        body: { type: "string", description: "Request body (text, e.g. JSON); at most 1 MiB." },
      },
      required: ["method", "url"],
      additionalProperties: false,
    },
    async handler(args: Args, ctx: ToolContext) {
      const policy = policyFromConfig(ctx.config);
      const res = await guardedFetch(args, {
        policy,
        resolver: options.resolver,
        limits: options.limits,
        signal: ctx.signal,
        ...(options.proxy ? { proxy: options.proxy } : {}),
      });
      const base: Record<string, unknown> = {
        status: res.status,
        status_text: res.statusText,
        url: res.url,
        headers: res.headers,
      };
      if (res.redirects.length > 0) base.redirects = res.redirects;
      const mime = (res.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
      if (res.body.length === 0) return { ...base, body: "" };
      if (isText(mime, res.body)) return { ...base, ...textBody(res, options.limits) };
      if (res.truncated) {
        return {
          ...base,
          truncated: true,
          note: `binary body larger than ${options.limits.maxResponseBytes} bytes; not stored`,
        };
      }
      const stored = ctx.artifacts.storeOutput(res.body, {
        filename: filenameFor(res),
        mimeType: mime || "application/octet-stream",
      });
      return { ...base, ...stored, note: "binary body stored as an artifact" };
    },
  };
}

function isText(mime: string, body: Buffer): boolean {
  if (mime) return TEXT_TYPES.test(mime);
  const sample = body.subarray(0, 4096);
  if (sample.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(
      sample.length < body.length ? sample.subarray(0, sample.length - 4) : sample,
    );
    return true;
  } catch {
    return false;
  }
}

function textBody(res: FetchResponse, limits: FetchLimits): Record<string, unknown> {
  const charset = /charset="?([^";]+)/i.exec(res.headers["content-type"] ?? "")?.[1]?.trim();
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset ?? "utf-8");
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  let text = decoder.decode(res.body);
  const notes: string[] = [];
  if (res.truncated) notes.push(`the response was longer than ${limits.maxResponseBytes} bytes and was cut`);
  if (text.length > MAX_TEXT_CHARS) {
    notes.push(`body cut to its first ${MAX_TEXT_CHARS} of ${text.length} characters`);
    text = text.slice(0, MAX_TEXT_CHARS);
  }
  return notes.length > 0 ? { body: text, truncated: true, note: notes.join("; ") } : { body: text };
}

function filenameFor(res: FetchResponse): string {
  const disposition = res.headers["content-disposition"] ?? "";
  const named = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition)?.[1];
  const candidate = named
    ? decodeURIComponentSafe(named)
    : decodeURIComponentSafe(path.posix.basename(new URL(res.url).pathname));
  const clean = candidate.replace(/[^\w.\- ]+/g, "_").slice(0, 100);
  return clean && clean !== "_" && clean !== "." ? clean : "download.bin";
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
