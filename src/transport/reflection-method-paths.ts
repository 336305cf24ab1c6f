/**
 * reflectionMethodPaths are the method paths server reflection answers (its v1 and v1alpha
 * services), on either gRPC host. A file of its own so that what only names them (metrics'
 * method labels) does not load @grpc/reflection and protobufjs with reflection.ts.
 */
export const reflectionMethodPaths: readonly string[] = [
  "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
  "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
];
