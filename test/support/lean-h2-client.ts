import { createHttp2GrpcTransport } from "../../clients/ts/src/transport/http2-grpc-transport.js";
import { createLeanClient } from "../../clients/ts/src/transport/lean-client.js";
import { Http2Connector, type Http2ConnectorOptions } from "../../clients/ts/src/transport/h2/http2-connector.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";

/** leanClient is a FileTools client on the client's own HTTP/2 connection to `url`. */
export function leanClient(url: string, options: Http2ConnectorOptions = {}, highWaterBytes?: number) {
  const connector = new Http2Connector(url, options);
  const files = createLeanClient(FileTools, createHttp2GrpcTransport({ baseUrl: url, connector, highWaterBytes }));
  return { files, connector };
}

/** Files is the FileTools client leanClient makes. */
export type Files = ReturnType<typeof leanClient>["files"];
