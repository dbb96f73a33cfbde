import { formatBytes } from "../tui/components/format.js";

/** The transport's limit per request; `limits.client_max_message` cannot go above it. */
export const TRANSPORT_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * Why a message of `bytes` was not sent, and what to do instead (shared by `run` and the chat);
 * `then` ends the sentence with what happened to the text, e.g. "; your text is back in the input box".
 */
export function tooLargeMessage(bytes: number, limitBytes: number, then = ""): string {
  const configurable =
    limitBytes < TRANSPORT_LIMIT_BYTES ? " (limits.client_max_message in the config, at most 16 MiB)" : "";
  return (
    `not sent: this message is ${formatBytes(bytes)}, over the Engine's limit of ${formatBytes(limitBytes)} per message${configurable}. ` +
    `Save the text as a file in the workspace and ask about that file instead${then}.`
  );
}

/** The limit the Engine named in its RESOURCE_EXHAUSTED message ("… limit of N bytes …"), if it did. */
export function limitFromMessage(message: string): number | undefined {
  const limit = /limit of (\d+) bytes/.exec(message)?.[1];
  return limit ? Number(limit) : undefined;
}
