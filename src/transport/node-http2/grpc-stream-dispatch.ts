import type { IncomingHttpHeaders, ServerHttp2Session, ServerHttp2Stream } from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Authenticator } from "../../auth/authenticator.js";
import { toConnectError } from "../../service/error-mapping.js";
import type { CallRecord } from "../call-record.js";
import { checkRequestHead } from "../grpc/request-head-check.js";
import { ConnectionBudgets, SendBudget } from "../grpc/send-budget.js";
import type { sendLimits } from "../grpc/transport-limits.js";
import { refuseHead } from "../grpc/refuse-stream.js";
import type { HostedService } from "../hosted-service.js";
import { recordedNote } from "../recorded-note.js";
import { requestIdFrom } from "../request-id.js";
import { hostedMethodsByPath, serveGrpcCall } from "./grpc-method-call.js";
import { refuseGrpcStream } from "./grpc-stream-answer.js";
import type { GrpcStreamLimits } from "./grpc-stream-limits.js";
import { callValues, sessionPeer } from "./session-peer.js";
import { StreamCallIo } from "./stream-call-io.js";

/** GrpcDispatchOptions configure how the node:http2 host serves its streams. */
export interface GrpcDispatchOptions {
  /** Every service the host answers, health and reflection included. */
  readonly services: readonly HostedService[];
  readonly maxReceiveMessageBytes: number;
  /** The send bounds (grpc/transport-limits.ts sendLimits), kept as on the grpc-js host. */
  readonly send: ReturnType<typeof sendLimits>;
  readonly shutdownSignal: AbortSignal;
  readonly streamLimits: GrpcStreamLimits;
  /** Checks the caller from the headers before anything of the body is read; health stays open. */
  readonly authenticator?: Authenticator | undefined;
  /**
   * Whether an answered call of a method path is recorded (onCallStart, onCallEnd): the toolhost
   * services' are, health and reflection not, as on grpc-js, so probes write no log lines.
   * A call refused by authentication is recorded whatever its method.
   */
  readonly recorded: (path: string) => boolean;
  readonly onCallEnd: (record: CallRecord) => void;
  readonly onCallStart?: ((method: string) => void) | undefined;
  /** Called as each admitted stream closes (its response, trailers included, has left). */
  readonly onStreamClosed?: (() => void) | undefined;
}

/**
 * grpcStreamDispatch serves each HTTP/2 stream of the node:http2 host with toolhost's own gRPC
 * framing (grpc-method-call.ts), no connect router: the stream is counted against its
 * connection's limits (or refused), its head checked (request-head-check.ts, as on grpc-js), its
 * method found, its caller authenticated from the headers (refused trailers-only before any body
 * byte is taken in), and then its body read through the limits (grpc-request-body.ts), cut into
 * messages (grpc-request-messages.ts) and handed to the ServiceImpl. Each call ends in one
 * CallRecord, the same shape the grpc-js host writes, so logs and metrics do not tell the hosts
 * apart.
 *
 * Request compression: gzip and deflate are read, as on grpc-js; responses are not compressed,
 * as on the grpc-js host.
 */
export function grpcStreamDispatch(
  options: GrpcDispatchOptions,
): (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => void {
  const limit = options.maxReceiveMessageBytes;
  const methods = hostedMethodsByPath(options.services);
  const { authenticator, onCallEnd, onCallStart, onStreamClosed, streamLimits } = options;
  const connectionBudgets = new ConnectionBudgets(options.send.maxPendingBytesPerConnection);
  const totalBudget = new SendBudget(options.send.maxPendingBytesTotal);
  const authenticates = authenticator !== undefined && authenticator.enabled;

  return (stream, headers) => {
    stream.on("error", ignore);
    const path = String(headers[":path"] ?? "");
    const head = checkRequestHead(headers);
    const account = streamLimits.admit(stream, path, "compressed" in head && head.compressed);
    if (account === undefined) return;
    let io: StreamCallIo | undefined;
    stream.once("close", () => {
      account.close();
      io?.streamClosed();
      onStreamClosed?.();
    });
    if ("httpStatus" in head) {
      refuseHead(stream, head);
      return;
    }
    const requestId = requestIdFrom(headers["x-request-id"]);
    const hosted = methods.get(path);
    if (hosted === undefined) {
      refuseGrpcStream(
        stream,
        new ConnectError(`The server does not implement the method ${path}`, Code.Unimplemented),
        { "x-request-id": requestId },
      );
      return;
    }
    const startedAt = process.hrtime.bigint();
    const client = sessionPeer(stream.session as ServerHttp2Session | undefined);
    const values = callValues(client);
    const peer = client.peer;
    const record = (code: number, error: Error | undefined, bytesOut: number, note?: ReturnType<typeof recordedNote>) =>
      onCallEnd({
        method: path,
        peer,
        code,
        durationMs: Number(process.hrtime.bigint() - startedAt) / 1e6,
        bytesIn: account.messageBytes,
        bytesOut,
        requestId,
        error,
        ...note,
      });
    if (authenticates && !path.startsWith("/grpc.health.v1.")) {
      try {
        authenticator.authenticate({
          authorization: headers.authorization,
          certificateIdentity: client.identity,
        });
      } catch (err) {
        const error = toConnectError(err);
        refuseGrpcStream(stream, error, { "x-request-id": requestId });
        onCallStart?.(path);
        record(error.code, error, 0);
        return;
      }
    }
    const recorded = options.recorded(path);
    if (recorded) onCallStart?.(path);
    const connectionBudget = connectionBudgets.acquire(peer);
    const encoding = headers["grpc-encoding"];
    io = new StreamCallIo(
      stream,
      hosted,
      path,
      account,
      limit,
      typeof encoding === "string" ? encoding : undefined,
      options.send,
      [connectionBudget, totalBudget],
    );
    const writer = io.writer;
    const done = () => {
      writer.release();
      connectionBudgets.release(peer);
    };
    void serveGrpcCall(
      hosted,
      stream,
      headers,
      path,
      values,
      { "x-request-id": requestId },
      options.shutdownSignal,
      io,
    ).then(
      ({ code, error, bytesOut }) => {
        done();
        if (recorded) record(code, error, bytesOut, recordedNote(values));
      },
      (reason: unknown) => {
        done();
        const error = ConnectError.from(reason);
        if (recorded) record(error.code === Code.Aborted ? Code.Canceled : error.code, error, 0, recordedNote(values));
      },
    );
  };
}

function ignore(): void {}
