import { create, createFileRegistry, type DescService } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, file_google_protobuf_wrappers } from "@bufbuild/protobuf/wkt";

/**
 * echoService is a test-only service with one method of each of the four gRPC call kinds, built
 * from a descriptor in code so the transport tests need no generated code of their own.
 */
export const echoService: DescService = (() => {
  const str = ".google.protobuf.StringValue";
  const file = create(FileDescriptorProtoSchema, {
    name: "toolhost/testing/v1/echo.proto",
    package: "toolhost.testing.v1",
    syntax: "proto3",
    dependency: ["google/protobuf/wrappers.proto"],
    service: [
      {
        name: "Echo",
        method: [
          { name: "Unary", inputType: str, outputType: str },
          { name: "ClientStream", inputType: str, outputType: str, clientStreaming: true },
          { name: "ServerStream", inputType: str, outputType: str, serverStreaming: true },
          { name: "Bidi", inputType: str, outputType: str, clientStreaming: true, serverStreaming: true },
        ],
      },
    ],
  });
  const registry = createFileRegistry(file, (name) =>
    name === "google/protobuf/wrappers.proto" ? file_google_protobuf_wrappers : undefined,
  );
  const service = registry.getService("toolhost.testing.v1.Echo");
  if (service === undefined) {
    throw new Error("echo service descriptor did not build");
  }
  return service;
})();
