import { create, toBinary } from "@bufbuild/protobuf";
import { AnySchema, anyPack } from "@bufbuild/protobuf/wkt";
import { ConnectError } from "@connectrpc/connect";
import { Metadata, type StatusObject } from "@grpc/grpc-js";
import { StatusSchema } from "../../../gen/ts/google/rpc/status_pb.js";

/**
 * statusFromError turns the ConnectError a handler threw into the grpc-js status the client
 * receives, with every detail (the ErrorInfo first of all) packed into a google.rpc.Status in the
 * `grpc-status-details-bin` trailer, which grpc-go, grpcio-status and connect-es all decode.
 */
export function statusFromError(error: ConnectError): StatusObject {
  const details = error.details.map((detail) =>
    "desc" in detail
      ? anyPack(detail.desc, create(detail.desc, detail.value))
      : create(AnySchema, { typeUrl: `type.googleapis.com/${detail.type}`, value: detail.value }),
  );
  const metadata = new Metadata();
  error.metadata.forEach((value, key) => {
    if (!key.endsWith("-bin")) {
      metadata.add(key, value);
    }
  });
  // ConnectError codes are numbered as gRPC codes, so the value passes through unchanged.
  const code = error.code as number;
  const status = create(StatusSchema, { code, message: error.rawMessage, details });
  metadata.set("grpc-status-details-bin", Buffer.from(toBinary(StatusSchema, status)));
  return { code, details: error.rawMessage, metadata };
}

/** asConnectError narrows anything thrown to a ConnectError, as a last line of defence. */
export function asConnectError(err: unknown): ConnectError {
  return err instanceof ConnectError ? err : ConnectError.from(err);
}
