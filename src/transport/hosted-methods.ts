import type { DescService } from "@bufbuild/protobuf";
import { Health } from "../../gen/ts/grpc/health/v1/health_pb.js";
import { reflectionMethodPaths } from "./reflection-method-paths.js";

/**
 * hostedMethodPaths is every "/package.Service/Method" path the server answers: the toolhost
 * services' methods from their descriptors, grpc.health.v1 and server reflection. It is the fixed
 * set metrics label methods from, so a path a client makes up cannot add a series.
 */
export function hostedMethodPaths(services: readonly DescService[]): ReadonlySet<string> {
  const paths = new Set<string>(reflectionMethodPaths);
  for (const service of [...services, Health]) {
    for (const method of service.methods) paths.add(`/${service.typeName}/${method.name}`);
  }
  return paths;
}
