import { toBinary, type DescFile } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import type { PackageDefinition } from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import type { Server } from "@grpc/grpc-js";
import { file_health_v1_health } from "../../gen/ts/grpc/health/v1/health_pb.js";

/**
 * addReflection serves grpc.reflection v1 and v1alpha for the given proto files (and the health
 * service), so that `grpcurl list`, `describe` and calls work without .proto files.
 *
 * The descriptors handed to @grpc/reflection are the exact FileDescriptorProtos embedded in the
 * protobuf-es code. Going through proto-loader (protobufjs) instead rewrites cross-package type
 * names as relative ones ("tools.v1.ResourceSlot") and misnames map entries, which grpcurl
 * cannot resolve. The health proto is generated from grpc-health-check's own copy for the same
 * reason.
 */
export function addReflection(server: Server, files: readonly DescFile[]): void {
  const ours: PackageDefinition = {};
  for (const file of withDependencies([...files, file_health_v1_health])) {
    // @grpc/reflection only reads `fileDescriptorProtos` of each entry; one entry per file is enough.
    ours[`file:${file.name}`] = {
      format: "Protocol Buffer 3 FileDescriptorProto",
      type: {},
      fileDescriptorProtos: [Buffer.from(toBinary(FileDescriptorProtoSchema, file.proto))],
    } as unknown as PackageDefinition[string];
  }
  new ReflectionService(ours).addToServer(server);
}

/** withDependencies lists files after everything they import, each once. */
function withDependencies(files: readonly DescFile[]): DescFile[] {
  const ordered: DescFile[] = [];
  const seen = new Set<string>();
  const visit = (file: DescFile) => {
    if (seen.has(file.name)) {
      return;
    }
    seen.add(file.name);
    file.dependencies.forEach(visit);
    ordered.push(file);
  };
  files.forEach(visit);
  return ordered;
}
