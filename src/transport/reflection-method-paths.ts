/** reflectionMethodPaths are the method paths of server reflection, v1 and v1alpha (node-http2/reflection-service.ts). */
export const reflectionMethodPaths: readonly string[] = [
  "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
  "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
];
