import { defineCapability } from "@palisade/capability-sdk";
import type { CapabilityDefinition } from "@palisade/capability-sdk";
import { listDirectory, readFile } from "./tools/read.js";
import { grepFiles, searchFiles } from "./tools/search.js";
import { copyFile, deleteFile, moveFile, writeFileTool } from "./tools/write.js";

/** The `files` capability: read, write and search inside the session's workspace. */
export function createFilesCapability(): CapabilityDefinition {
  return defineCapability({
    id: "files",
    tools: [readFile, writeFileTool, listDirectory, searchFiles, grepFiles, deleteFile, moveFile, copyFile],
  });
}
