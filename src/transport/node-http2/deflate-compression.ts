import { promisify } from "node:util";
import { deflate, inflate } from "node:zlib";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Compression } from "@connectrpc/connect/protocol";

const deflateAsync = promisify(deflate);
const inflateAsync = promisify(inflate);

/**
 * compressionDeflate is gRPC's "deflate" message encoding (zlib format, as grpc-js reads it), for
 * connect's router: connect-node ships gzip and brotli only, and the grpc-js host reads deflate
 * too, so clients that send it keep working on the node:http2 host. Inflating stops at
 * `readMaxBytes`, as connect-node's gzip does.
 */
export const compressionDeflate: Compression = {
  name: "deflate",
  async compress(bytes) {
    return new Uint8Array(await deflateAsync(bytes));
  },
  async decompress(bytes, readMaxBytes) {
    if (bytes.length === 0) return new Uint8Array(0);
    try {
      return new Uint8Array(await inflateAsync(bytes, { maxOutputLength: readMaxBytes }));
    } catch (err) {
      const tooLarge = (err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE";
      throw new ConnectError(
        tooLarge
          ? `message is larger than configured readMaxBytes ${readMaxBytes} after decompression`
          : "decompression failed",
        tooLarge ? Code.ResourceExhausted : Code.InvalidArgument,
        undefined,
        undefined,
        err,
      );
    }
  },
};
