import type { Capability } from "@palisade/protocol/capability";
import type { InvokeChunkSchema } from "@palisade/protocol/capability";
import type { ServiceImpl } from "@palisade/protocol";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { chunksOf } from "./artifacts.js";
import type { ArtifactStore } from "./artifacts.js";
import type { CapabilityDefinition } from "./define.js";
import { encodeResult, encodeStreamItem, errorMessage, prepareCall, runHandler } from "./invoke.js";
import type { PreparedCall, Reporter } from "./invoke.js";

type Chunk = MessageInitShape<typeof InvokeChunkSchema>;
export type CapabilityImpl = ServiceImpl<typeof Capability>;

export interface ServiceOptions {
  store: ArtifactStore;
  maxUploadBytes: number;
  report: Reporter;
}

/** The selu.capability.v1.Capability service for one capability definition. */
export function capabilityService(cap: CapabilityDefinition, options: ServiceOptions): CapabilityImpl {
  const { store, report } = options;
  const prepare = (req: Parameters<CapabilityImpl["invoke"]>[0], signal: AbortSignal): PreparedCall | string => {
    try {
      return prepareCall(cap, store, req, signal);
    } catch (err) {
      return errorMessage(req.toolName, err, signal, report);
    }
  };

  return {
    async invoke(req, { signal }) {
      const call = prepare(req, signal);
      if (typeof call === "string") return { error: call };
      try {
        return { resultJson: await runHandler(call) };
      } catch (err) {
        return { error: errorMessage(call.tool.name, err, signal, report) };
      }
    },

    async *streamInvoke(req, { signal }) {
      const call = prepare(req, signal);
      if (typeof call === "string") {
        yield { error: call, done: true };
        return;
      }
      const { tool, args, ctx } = call;
      let final: Chunk;
      try {
        if (tool.stream) {
          for await (const item of tool.stream(args, ctx)) yield { data: encodeStreamItem(item) };
          final = { done: true };
        } else {
          final = { data: encodeResult(tool.name, await tool.handler(args, ctx)), done: true };
        }
      } catch (err) {
        final = { error: errorMessage(tool.name, err, signal, report), done: true };
      }
      yield final;
    },

    async healthcheck() {
      if (!cap.ready) return { ready: true, message: "ready" };
      try {
        const r = await cap.ready();
        return { ready: r.ready === true, message: r.message ?? "" };
      } catch (err) {
        report("readiness hook threw", err);
        return { ready: false, message: `readiness check failed: ${err instanceof Error ? err.message : String(err)}` };
      }
    },

    async uploadInputArtifact(chunks) {
      const parts: Uint8Array[] = [];
      let size = 0;
      let filename = "";
      let mimeType = "";
      for await (const chunk of chunks) {
        filename ||= chunk.filename;
        mimeType ||= chunk.mimeType;
        size += chunk.data.byteLength;
        if (size > options.maxUploadBytes) {
          return {
            error: `artifact${filename ? ` ${filename}` : ""} is larger than the ${options.maxUploadBytes}-byte limit of capability ${cap.id}; send a smaller file`,
          };
        }
        if (chunk.data.byteLength > 0) parts.push(chunk.data);
      }
      const data = Buffer.concat(parts, size);
      const id = store.storeInput({
        data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
        filename,
        mimeType: mimeType || "application/octet-stream",
      });
      return { capabilityArtifactId: id, sizeBytes: BigInt(size) };
    },

    async *downloadOutputArtifact(req) {
      const artifact = store.getOutput(req.capabilityArtifactId);
      if (!artifact) {
        yield {
          error: `unknown capability_artifact_id "${req.capabilityArtifactId}" for capability ${cap.id}: never stored here, or expired`,
          done: true,
        };
        return;
      }
      const { data, filename, mimeType } = artifact;
      let first = true;
      let sent = 0;
      for (const part of chunksOf(data)) {
        sent += part.byteLength;
        yield { data: part, ...(first ? { filename, mimeType } : {}), done: sent === data.byteLength };
        first = false;
      }
    },
  };
}
