import { create, createRegistry, fromBinary, toBinary, type DescFile } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  ServerReflection,
  ServerReflectionRequestSchema,
  ServerReflectionResponseSchema,
  file_grpc_reflection_v1_reflection,
  type ServerReflectionRequest,
  type ServerReflectionResponse,
} from "../../../gen/ts/grpc/reflection/v1/reflection_pb.js";
import {
  ServerReflection as ServerReflectionAlpha,
  ServerReflectionRequestSchema as AlphaRequestSchema,
  ServerReflectionResponseSchema as AlphaResponseSchema,
  file_grpc_reflection_v1alpha_reflection,
} from "../../../gen/ts/grpc/reflection/v1alpha/reflection_pb.js";
import type { HostedService } from "../hosted-service.js";

const notFound = 5;
const unimplemented = 12;

/**
 * reflectionServices are grpc.reflection v1 and v1alpha as connect ServiceImpls, for `grpcurl
 * list` and `describe` on the node:http2 host: they list `services` (and themselves) and answer
 * each file by name or by a symbol it defines (a service, method, message, enum or field) with
 * that file and every file it imports, as the exact FileDescriptorProtos embedded in the
 * protobuf-es code (see reflection.ts for why not proto-loader's). Extensions are not used by
 * toolhost's protos: asking for one is NOT_FOUND. The two versions share one wire format, so
 * v1alpha is v1's answer re-encoded.
 */
export function reflectionServices(
  serviceNames: readonly string[],
  files: readonly DescFile[],
): readonly HostedService[] {
  const all = [...files, file_grpc_reflection_v1_reflection, file_grpc_reflection_v1alpha_reflection];
  const ordered = withDependencies(all);
  const registry = createRegistry(...ordered);
  const byName = new Map(ordered.map((file) => [file.proto.name, file]));
  const listed = [...serviceNames, ServerReflection.typeName, ServerReflectionAlpha.typeName].map((name) => ({
    name,
  }));
  const encoded = new Map<string, Uint8Array[]>();
  const fileWithImports = (file: DescFile): Uint8Array[] => {
    let bytes = encoded.get(file.name);
    if (bytes === undefined) {
      bytes = withDependencies([file]).map((f) => toBinary(FileDescriptorProtoSchema, f.proto));
      encoded.set(file.name, bytes);
    }
    return bytes;
  };
  const fileOfSymbol = (symbol: string): DescFile | undefined => {
    const type = registry.get(symbol);
    if (type !== undefined) return type.file;
    // A method ("pkg.Service.Method") or a field ("pkg.Message.field"): the file of its parent.
    const parent = registry.get(symbol.slice(0, Math.max(0, symbol.lastIndexOf("."))));
    return parent?.kind === "service" || parent?.kind === "message" ? parent.file : undefined;
  };
  const answer = (request: ServerReflectionRequest): ServerReflectionResponse => {
    const base = { validHost: request.host, originalRequest: request };
    const error = (code: number, message: string) =>
      create(ServerReflectionResponseSchema, {
        ...base,
        messageResponse: { case: "errorResponse", value: { errorCode: code, errorMessage: message } },
      });
    const files = (file: DescFile | undefined, what: string) =>
      file === undefined
        ? error(notFound, `${what} is not known to this server`)
        : create(ServerReflectionResponseSchema, {
            ...base,
            messageResponse: { case: "fileDescriptorResponse", value: { fileDescriptorProto: fileWithImports(file) } },
          });
    const asked = request.messageRequest;
    switch (asked.case) {
      case "listServices":
        return create(ServerReflectionResponseSchema, {
          ...base,
          messageResponse: { case: "listServicesResponse", value: { service: listed } },
        });
      case "fileByFilename":
        return files(byName.get(asked.value), `file ${asked.value}`);
      case "fileContainingSymbol":
        return files(fileOfSymbol(asked.value), `symbol ${asked.value}`);
      case "fileContainingExtension":
        return error(notFound, `no extension of ${asked.value.containingType} is known to this server`);
      case "allExtensionNumbersOfType":
        return create(ServerReflectionResponseSchema, {
          ...base,
          messageResponse: {
            case: "allExtensionNumbersResponse",
            value: { baseTypeName: asked.value, extensionNumber: [] },
          },
        });
      default:
        return error(unimplemented, "the request names no reflection question this server answers");
    }
  };
  const v1: ServiceImpl<typeof ServerReflection> = {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) yield answer(request);
    },
  };
  const v1alpha: ServiceImpl<typeof ServerReflectionAlpha> = {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) {
        const asV1 = fromBinary(ServerReflectionRequestSchema, toBinary(AlphaRequestSchema, request));
        yield fromBinary(AlphaResponseSchema, toBinary(ServerReflectionResponseSchema, answer(asV1)));
      }
    },
  };
  return [
    { service: ServerReflection, impl: v1 } as unknown as HostedService,
    { service: ServerReflectionAlpha, impl: v1alpha } as unknown as HostedService,
  ];
}

/** withDependencies lists files after everything they import, each once. */
function withDependencies(files: readonly DescFile[]): DescFile[] {
  const ordered: DescFile[] = [];
  const seen = new Set<string>();
  const visit = (file: DescFile) => {
    if (seen.has(file.name)) return;
    seen.add(file.name);
    file.dependencies.forEach(visit);
    ordered.push(file);
  };
  files.forEach(visit);
  return ordered;
}
