import type { ServerUnaryCall } from "@grpc/grpc-js";

/** SurfaceCall is what every kind of grpc-js server call offers (grpc-js does not export it). */
export type SurfaceCall = Pick<
  ServerUnaryCall<Buffer, Buffer>,
  "metadata" | "getDeadline" | "getPeer" | "sendMetadata" | "cancelled" | "getAuthContext"
> & {
  once(event: "cancelled", listener: () => void): unknown;
};
