import type { OutgoingHttpHeaders } from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import { encodeHeaderPrefix, HpackEncoder } from "./hpack-encoder.js";
import { HpackError } from "./hpack-error.js";

/** forbidden are the connection-specific headers HTTP/2 does not allow (RFC 9113, section 8.2.2). */
const forbidden = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host"]);

/**
 * RequestHeaderEncoder HPACK-encodes a call's request headers: `:method` POST, `:scheme` and
 * `:authority` encoded once (Huffman-coded), the headers the transport gives once per headers
 * object (a plain call's are the same object every time), and `:path` per call between the two,
 * in the one buffer of HpackEncoder's prefix and suffix.
 */
export class RequestHeaderEncoder {
  readonly #encoder = new HpackEncoder();
  readonly #pseudo: Buffer;
  #lastHeaders: OutgoingHttpHeaders | undefined;
  #lastBlock: Buffer | undefined;

  constructor(scheme: string, authority: string) {
    this.#pseudo = encodeHeaderPrefix([
      [":method", "POST"],
      [":scheme", scheme],
      [":authority", authority],
    ]);
  }

  /** encode is the header block of a POST to `path` with `headers` (names are lower-cased; values must not hold CR, LF or NUL). */
  encode(path: string, headers: OutgoingHttpHeaders): Buffer {
    try {
      return this.#encode(path, headers);
    } catch (err) {
      // A header the caller gave that HTTP/2 cannot carry (an uppercase name, CR or LF in a value).
      throw err instanceof HpackError ? new ConnectError(`request header not sent: ${err.message}`, Code.InvalidArgument) : err;
    }
  }

  #encode(path: string, headers: OutgoingHttpHeaders): Buffer {
    let block = this.#lastHeaders === headers ? this.#lastBlock : undefined;
    if (block === undefined) {
      block = this.#encoder.encode(fields(headers));
      this.#lastHeaders = headers;
      this.#lastBlock = block;
    }
    return this.#encoder.encode([[":path", path]], this.#pseudo, block);
  }
}

/** fields lists `headers` as HPACK fields: lower-case names, a field per value of a list. */
function fields(headers: OutgoingHttpHeaders): [string, string][] {
  const out: [string, string][] = [];
  for (const key of Object.keys(headers)) {
    const value = headers[key];
    if (value === undefined) continue;
    const name = key.toLowerCase();
    if (name.startsWith(":") || forbidden.has(name)) {
      throw new ConnectError(`request header "${key}" is not allowed on an HTTP/2 call`, Code.InvalidArgument);
    }
    if (Array.isArray(value)) {
      for (const v of value) out.push([name, String(v)]);
    } else {
      out.push([name, String(value)]);
    }
  }
  return out;
}
