// The Agent names the model server by a label (it is never told the URL, which may carry a
// password or a key in its query). What the Engine shows the user names the server again, by
// the parts of the URL that hold no credential.
import { MODEL_SERVER_LABEL } from "@palisade/agent";
import { DEFAULT_BASE_URL } from "../gateway/upstream.js";

/** `baseUrl` without userinfo and query: scheme, host, port and path. */
export function publicUrl(baseUrl: string | undefined): string {
  try {
    const u = new URL(baseUrl || DEFAULT_BASE_URL);
    return `${u.origin}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    return "the configured model server (model.base_url)";
  }
}

/** An Agent's message with its label for the model server replaced by the server's public URL. */
export function modelServerNamed(message: string, baseUrl: string | undefined): string {
  return message.includes(MODEL_SERVER_LABEL) ? message.replaceAll(MODEL_SERVER_LABEL, publicUrl(baseUrl)) : message;
}
