/**
 * frameType names the HTTP/2 frame types (RFC 9113, section 6) the client reads or writes.
 */
export const frameType = {
  data: 0x0,
  headers: 0x1,
  priority: 0x2,
  rstStream: 0x3,
  settings: 0x4,
  pushPromise: 0x5,
  ping: 0x6,
  goaway: 0x7,
  windowUpdate: 0x8,
  continuation: 0x9,
} as const;

/** frameFlag names the HTTP/2 frame flags (RFC 9113, section 6). */
export const frameFlag = {
  endStream: 0x1,
  ack: 0x1,
  endHeaders: 0x4,
  padded: 0x8,
  priority: 0x20,
} as const;

/** h2Error names the HTTP/2 error codes (RFC 9113, section 7) the client sends or tells apart. */
export const h2Error = {
  noError: 0x0,
  protocolError: 0x1,
  internalError: 0x2,
  flowControlError: 0x3,
  settingsTimeout: 0x4,
  streamClosed: 0x5,
  frameSizeError: 0x6,
  refusedStream: 0x7,
  cancel: 0x8,
  compressionError: 0x9,
  connectError: 0xa,
  enhanceYourCalm: 0xb,
  inadequateSecurity: 0xc,
  http11Required: 0xd,
} as const;

/** setting names the SETTINGS parameters (RFC 9113, section 6.5.2). */
export const setting = {
  headerTableSize: 0x1,
  enablePush: 0x2,
  maxConcurrentStreams: 0x3,
  initialWindowSize: 0x4,
  maxFrameSize: 0x5,
  maxHeaderListSize: 0x6,
} as const;

/** frameHeaderBytes is the size of every frame's header. */
export const frameHeaderBytes = 9;
/** defaultMaxFrameSize is SETTINGS_MAX_FRAME_SIZE's initial value, the largest frame either side may send until told otherwise. */
export const defaultMaxFrameSize = 16_384;
/** defaultWindow is the initial flow-control window of a connection and of each stream. */
export const defaultWindow = 65_535;
/** maxWindow is the largest flow-control window HTTP/2 allows. */
export const maxWindow = 0x7fff_ffff;
/** connectionPreface is what a client sends first on every HTTP/2 connection. */
export const connectionPreface = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

/** frameHeader is the 9-byte header of a frame. */
export function frameHeader(length: number, type: number, flags: number, streamId: number): Buffer {
  const header = Buffer.allocUnsafe(frameHeaderBytes);
  header.writeUIntBE(length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(streamId, 5);
  return header;
}

/** frame is a whole frame with a small payload, in one buffer. */
export function frame(type: number, flags: number, streamId: number, payload: Uint8Array = new Uint8Array(0)): Buffer {
  const out = Buffer.allocUnsafe(frameHeaderBytes + payload.byteLength);
  out.writeUIntBE(payload.byteLength, 0, 3);
  out[3] = type;
  out[4] = flags;
  out.writeUInt32BE(streamId, 5);
  out.set(payload, frameHeaderBytes);
  return out;
}

/** settingsFrame is a SETTINGS frame carrying `values` (id, value pairs). */
export function settingsFrame(values: ReadonlyArray<readonly [id: number, value: number]>): Buffer {
  const payload = Buffer.allocUnsafe(6 * values.length);
  values.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, 6 * i);
    payload.writeUInt32BE(value, 6 * i + 2);
  });
  return frame(frameType.settings, 0, 0, payload);
}

/** windowUpdateFrame is a WINDOW_UPDATE frame adding `increment` to the window of `streamId` (0: the connection). */
export function windowUpdateFrame(streamId: number, increment: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(increment, 0);
  return frame(frameType.windowUpdate, 0, streamId, payload);
}

/** rstStreamFrame is a RST_STREAM frame ending `streamId` with `code`. */
export function rstStreamFrame(streamId: number, code: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(code, 0);
  return frame(frameType.rstStream, 0, streamId, payload);
}

/** goawayFrame is a GOAWAY frame: the last stream the client took, and why it goes. */
export function goawayFrame(lastStreamId: number, code: number): Buffer {
  const payload = Buffer.allocUnsafe(8);
  payload.writeUInt32BE(lastStreamId, 0);
  payload.writeUInt32BE(code, 4);
  return frame(frameType.goaway, 0, 0, payload);
}

/**
 * headerFrames are the frames carrying a header block on `streamId`: one HEADERS frame, or HEADERS
 * and CONTINUATION frames of at most `maxFrameSize` each (END_HEADERS on the last), as headers
 * and payloads to write in order.
 */
export function headerFrames(block: Buffer, streamId: number, maxFrameSize: number): Buffer[] {
  if (block.byteLength <= maxFrameSize) {
    return [frameHeader(block.byteLength, frameType.headers, frameFlag.endHeaders, streamId), block];
  }
  const out: Buffer[] = [];
  for (let at = 0; at < block.byteLength; at += maxFrameSize) {
    const part = block.subarray(at, at + maxFrameSize);
    const endHeaders = at + maxFrameSize >= block.byteLength ? frameFlag.endHeaders : 0;
    out.push(frameHeader(part.byteLength, at === 0 ? frameType.headers : frameType.continuation, endHeaders, streamId), part);
  }
  return out;
}

/**
 * clientPreface is what the client sends first: the connection preface, its SETTINGS (no server
 * push, its stream window, its header list limit) and the WINDOW_UPDATE that widens the
 * connection's window from HTTP/2's 64 KiB.
 */
export function clientPreface(streamWindow: number, connectionWindow: number, maxHeaderListSize: number): Buffer[] {
  const out = [
    connectionPreface,
    settingsFrame([
      [setting.enablePush, 0],
      [setting.initialWindowSize, streamWindow],
      [setting.maxHeaderListSize, maxHeaderListSize],
    ]),
  ];
  if (connectionWindow > defaultWindow) {
    out.push(windowUpdateFrame(0, connectionWindow - defaultWindow));
  }
  return out;
}
