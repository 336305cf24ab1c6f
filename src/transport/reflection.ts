import { create, toBinary, type DescFile } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { loadFileDescriptorSetFromBuffer, loadSync, type PackageDefinition } from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import type { Server } from "@grpc/grpc-js";
import { protoPath as healthProtoPath } from "grpc-health-check";

/**
 * addReflection serves grpc.reflection v1 and v1alpha for the given proto files (and the health
 * service), so that `grpcurl list` and `grpcurl describe` work without .proto files.
 *
 * @grpc/reflection wants a proto-loader PackageDefinition; the descriptors embedded in the
 * protobuf-es code are the same ones the server uses, so they are turned into a
 * FileDescriptorSet rather than loading the .proto sources a second time.
 */
export function addReflection(server: Server, files: readonly DescFile[]): void {
  const set = create(FileDescriptorSetSchema, { file: withDependencies(files).map((f) => f.proto) });
  const ours = loadFileDescriptorSetFromBuffer(Buffer.from(toBinary(FileDescriptorSetSchema, set)));
  const health = loadSync(healthProtoPath);
  const merged: PackageDefinition = { ...health, ...ours };
  new ReflectionService(merged).addToServer(server);
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
