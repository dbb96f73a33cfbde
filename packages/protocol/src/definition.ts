import type { DescMethod, DescService } from "@bufbuild/protobuf";
import type { MethodDefinition, ServiceDefinition } from "@grpc/grpc-js";
import { deserializer, serializer } from "./codec.js";

export function methodPath(service: DescService, method: DescMethod): string {
  return `/${service.typeName}/${method.name}`;
}

/** Hands grpc-js the request bytes as they came: the server decodes them after authorization. */
const rawBytes = (buf: Buffer): Buffer => buf;

/**
 * A protobuf-es service descriptor has everything grpc-js needs to describe a service. With
 * `rawRequests`, requests stay undecoded Buffers (RpcServer decodes them itself, once the
 * caller is authorized and the size is within the service's limit).
 */
export function toServiceDefinition(service: DescService, options: { rawRequests?: boolean } = {}): ServiceDefinition {
  const def: Record<string, MethodDefinition<unknown, unknown>> = {};
  for (const method of service.methods) {
    def[method.localName] = {
      path: methodPath(service, method),
      requestStream: method.methodKind === "client_streaming" || method.methodKind === "bidi_streaming",
      responseStream: method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming",
      requestSerialize: serializer(method.input) as (v: unknown) => Buffer,
      requestDeserialize: options.rawRequests ? rawBytes : deserializer(method.input),
      responseSerialize: serializer(method.output) as (v: unknown) => Buffer,
      responseDeserialize: deserializer(method.output),
      originalName: method.name,
    };
  }
  return def;
}
