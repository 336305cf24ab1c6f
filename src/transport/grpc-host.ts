/** GrpcHost is the listening gRPC server (node-http2/node-http2-host.ts). */
export interface GrpcHost {
  readonly address: string;
  /** Sets the grpc.health.v1 status of one service ("" for the server). */
  readonly health: { setStatus(service: string, status: "SERVING" | "NOT_SERVING"): void };
  /** Stops accepting calls, waits up to graceMs for in-flight ones, then cancels the rest. */
  close(graceMs: number): Promise<void>;
}
