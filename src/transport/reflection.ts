import { toBinary, type DescFile } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { loadSync, type PackageDefinition } from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import type { Server } from "@grpc/grpc-js";
import { protoPath as healthProtoPath } from "grpc-health-check";

/**
 * addReflection serves grpc.reflection v1 and v1alpha for the given proto files (and the health
 * service), so that `grpcurl list`, `describe` and calls work without .proto files.
 *
 * The descriptors handed to @grpc/reflection are the exact FileDescriptorProtos embedded in the
 * protobuf-es code. Going through proto-loader (protobufjs) instead rewrites cross-package type
 * names as relative ones ("tools.v1.ResourceSlot"), which grpcurl cannot resolve.
 */
export function addReflection(server: Server, files: readonly DescFile[]): void {
  const ours: PackageDefinition = {};
  for (const file of withDependencies(files)) {
    // @grpc/reflection only reads `fileDescriptorProtos` of each entry; one entry per file is enough.
    ours[`file:${file.name}`] = {
      format: "Protocol Buffer 3 FileDescriptorProto",
      type: {},
      fileDescriptorProtos: [Buffer.from(toBinary(FileDescriptorProtoSchema, file.proto))],
    } as unknown as PackageDefinition[string];
  }
  const health = loadSync(healthProtoPath);
  new ReflectionService({ ...health, ...ours }).addToServer(server);
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
