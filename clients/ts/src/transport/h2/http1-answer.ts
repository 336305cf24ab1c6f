import { Code, ConnectError } from "@connectrpc/connect";

/**
 * http1Answer is the error for a server whose first bytes are an HTTP/1 response ("HTTP/1.1 400
 * ..."), as a server that does not speak HTTP/2 on that port answers the connection preface; or
 * undefined for anything else (which the frame parser then judges).
 */
export function http1Answer(firstChunk: Buffer, authority: string): ConnectError | undefined {
  if (firstChunk.subarray(0, 5).toString("latin1") !== "HTTP/") {
    return undefined;
  }
  const line = firstChunk.subarray(0, Math.max(0, firstChunk.indexOf("\r\n"))).toString("latin1").slice(0, 80);
  return new ConnectError(`the server at ${authority} answered in HTTP/1 ("${line}"), not HTTP/2: is this toolhost's gRPC port?`, Code.Unavailable);
}
