import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import {
  Health,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus as ServingStatus,
  type HealthCheckResponse,
} from "../../../gen/ts/grpc/health/v1/health_pb.js";

/** HealthStatusName is a status a host sets for one service ("" is the whole server). */
export type HealthStatusName = "SERVING" | "NOT_SERVING";

/** HealthService is grpc.health.v1 as a connect ServiceImpl, and the setter of its statuses. */
export interface HealthService {
  readonly impl: ServiceImpl<typeof Health>;
  setStatus(service: string, status: HealthStatusName): void;
}

/**
 * createHealthService serves grpc.health.v1 (Check, Watch, List) for the services named in
 * `initial` ("" being the server as a whole), as grpc-health-check does on grpc-js: Check of a
 * name not listed is NOT_FOUND, Watch of one sends SERVICE_UNKNOWN and waits, and every status
 * change reaches the open watches of that name. A watch holds one pending status, not a queue:
 * a slow watcher sees the latest status, which is what a probe needs.
 */
export function createHealthService(initial: Readonly<Record<string, HealthStatusName>>): HealthService {
  const statuses = new Map<string, ServingStatus>(
    Object.entries(initial).map(([name, status]) => [name, ServingStatus[status]]),
  );
  const watchers = new Map<string, Set<() => void>>();
  const response = (status: ServingStatus): HealthCheckResponse => create(HealthCheckResponseSchema, { status });
  const impl: ServiceImpl<typeof Health> = {
    check(request) {
      const status = statuses.get(request.service);
      if (status === undefined) {
        throw new ConnectError(`health: no service named "${request.service}" is served here`, Code.NotFound);
      }
      return response(status);
    },
    list() {
      return {
        statuses: Object.fromEntries([...statuses].map(([name, status]) => [name, response(status)])),
      };
    },
    async *watch(request, context) {
      const name = request.service;
      let wake: (() => void) | undefined;
      let changed = true;
      const onChange = () => {
        changed = true;
        wake?.();
      };
      let set = watchers.get(name);
      if (set === undefined) {
        set = new Set();
        watchers.set(name, set);
      }
      set.add(onChange);
      const onAbort = () => wake?.();
      context.signal.addEventListener("abort", onAbort);
      try {
        while (!context.signal.aborted) {
          if (changed) {
            changed = false;
            yield response(statuses.get(name) ?? ServingStatus.SERVICE_UNKNOWN);
            continue;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
        }
      } finally {
        context.signal.removeEventListener("abort", onAbort);
        set.delete(onChange);
        if (set.size === 0) watchers.delete(name);
      }
    },
  };
  return {
    impl,
    setStatus(service, status) {
      const next = ServingStatus[status];
      if (statuses.get(service) === next) return;
      statuses.set(service, next);
      for (const notify of watchers.get(service) ?? []) notify();
    },
  };
}
