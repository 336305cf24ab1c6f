import { frame, frameFlag, frameType, h2Error, maxWindow, setting } from "./frame.js";
import type { FrameReceiver } from "./frame-receiver.js";
import { H2ProtocolError } from "./h2-protocol-error.js";

/**
 * maxContinuations is how many CONTINUATION frames may follow a HEADERS frame (nghttp2 allows 8;
 * a 64 KiB header list needs 4 of 16 KiB).
 */
const maxContinuations = 16;

/**
 * receiveFrame acts on one frame from the server (RFC 9113, section 6): data and header blocks go
 * to their streams, SETTINGS and PING are acknowledged, WINDOW_UPDATE opens windows, RST_STREAM
 * and GOAWAY end streams. A breach of the protocol throws H2ProtocolError (the connection ends);
 * frames of streams the client has forgotten (reset or ended) are dropped, their header blocks
 * still decoded so that HPACK's table stays in step.
 */
export function receiveFrame(conn: FrameReceiver, type: number, flags: number, streamId: number, payload: Buffer): void {
  if (conn.continuation !== undefined && type !== frameType.continuation) {
    throw new H2ProtocolError(`expected CONTINUATION of stream ${conn.continuation.streamId}, got frame type ${type}`, h2Error.protocolError);
  }
  if (!conn.settingsReceived && type !== frameType.settings) {
    throw new H2ProtocolError(`the server's first frame must be SETTINGS, got type ${type}`, h2Error.protocolError);
  }
  switch (type) {
    case frameType.data:
      return receiveData(conn, flags, streamId, payload);
    case frameType.headers:
      return receiveHeaders(conn, flags, streamId, payload);
    case frameType.continuation:
      return receiveContinuation(conn, flags, streamId, payload);
    case frameType.rstStream: {
      expect(streamId !== 0, "RST_STREAM on stream 0");
      expectLength(payload.byteLength === 4, "RST_STREAM");
      expect(!conn.isIdle(streamId), `RST_STREAM on idle stream ${streamId}`);
      const stream = conn.stream(streamId);
      if (stream !== undefined) conn.peerReset(stream, payload.readUInt32BE(0));
      return;
    }
    case frameType.settings:
      return receiveSettings(conn, flags, streamId, payload);
    case frameType.ping:
      expect(streamId === 0, "PING on a stream");
      expectLength(payload.byteLength === 8, "PING");
      if ((flags & frameFlag.ack) === 0) conn.acknowledge(frame(frameType.ping, frameFlag.ack, 0, payload));
      return;
    case frameType.goaway:
      expect(streamId === 0, "GOAWAY on a stream");
      expectLength(payload.byteLength >= 8, "GOAWAY");
      conn.goaway(payload.readUInt32BE(0) & 0x7fff_ffff);
      return;
    case frameType.windowUpdate:
      return receiveWindowUpdate(conn, streamId, payload);
    case frameType.pushPromise:
      throw new H2ProtocolError("PUSH_PROMISE although the client disabled server push", h2Error.protocolError);
    default:
      return; // PRIORITY and unknown types are ignored, as RFC 9113 says
  }
}

function receiveData(conn: FrameReceiver, flags: number, streamId: number, payload: Buffer): void {
  expect(streamId !== 0, "DATA on stream 0");
  const length = payload.byteLength;
  if (!conn.received(length)) {
    throw new H2ProtocolError("the server sent more DATA than the connection's window", h2Error.flowControlError);
  }
  let data = payload;
  if ((flags & frameFlag.padded) !== 0) {
    expect(length >= 1 && payload[0]! < length, "DATA padding longer than the frame");
    data = payload.subarray(1, length - payload[0]!);
  }
  const stream = conn.stream(streamId);
  if (stream === undefined || stream.remoteEnded) {
    expect(!conn.isIdle(streamId), `DATA on idle stream ${streamId}`);
    conn.creditConnection(length); // a stream the client reset or that has ended: dropped
    return;
  }
  stream.recvWindow -= length;
  if (stream.recvWindow < 0) {
    conn.creditConnection(length);
    stream.close(h2Error.flowControlError);
    return;
  }
  if (length !== data.byteLength) {
    conn.consumed(stream, length - data.byteLength); // padding is no one's to read: the stream and the connection get it back
  }
  if (data.byteLength > 0) {
    stream.receiveData(data);
  }
  if ((flags & frameFlag.endStream) !== 0) {
    stream.receiveEnd();
  }
}

function receiveHeaders(conn: FrameReceiver, flags: number, streamId: number, payload: Buffer): void {
  expect(streamId !== 0, "HEADERS on stream 0");
  let at = 0;
  let end = payload.byteLength;
  if ((flags & frameFlag.padded) !== 0) {
    expect(end >= 1, "HEADERS padding");
    end -= payload[0]!;
    at = 1;
  }
  if ((flags & frameFlag.priority) !== 0) {
    at += 5;
  }
  expect(end >= at, "HEADERS padding or priority longer than the frame");
  const fragment = payload.subarray(at, end);
  if ((flags & frameFlag.endHeaders) === 0) {
    conn.continuation = { streamId, flags, parts: [fragment], size: fragment.byteLength };
    return;
  }
  headerBlock(conn, flags, streamId, fragment);
}

function receiveContinuation(conn: FrameReceiver, flags: number, streamId: number, payload: Buffer): void {
  const pending = conn.continuation;
  expect(pending !== undefined && pending.streamId === streamId, `CONTINUATION of stream ${streamId} without HEADERS`);
  pending!.parts.push(payload);
  pending!.size += payload.byteLength;
  if (pending!.size > conn.maxHeaderBlockBytes) {
    throw new H2ProtocolError(`a header block of more than ${pending!.size} bytes`, h2Error.enhanceYourCalm);
  }
  if (pending!.parts.length > maxContinuations) {
    // Empty CONTINUATION frames add no bytes but cost a buffer each (CVE-2024-27983's kind).
    throw new H2ProtocolError(`a header block in more than ${maxContinuations} CONTINUATION frames`, h2Error.enhanceYourCalm);
  }
  if ((flags & frameFlag.endHeaders) !== 0) {
    conn.continuation = undefined;
    headerBlock(conn, pending!.flags, streamId, Buffer.concat(pending!.parts, pending!.size));
  }
}

function headerBlock(conn: FrameReceiver, flags: number, streamId: number, block: Buffer): void {
  const fields = conn.decoder.decode(block); // always, to keep the decoder's table in step
  const stream = conn.stream(streamId);
  if (stream === undefined) {
    expect(!conn.isIdle(streamId), `HEADERS on idle stream ${streamId} (no server push)`);
    return;
  }
  if (stream.remoteEnded) {
    stream.close(h2Error.streamClosed);
    return;
  }
  stream.receiveHeaders(fields, (flags & frameFlag.endStream) !== 0);
}

function receiveSettings(conn: FrameReceiver, flags: number, streamId: number, payload: Buffer): void {
  expect(streamId === 0, "SETTINGS on a stream");
  if ((flags & frameFlag.ack) !== 0) {
    expectLength(payload.byteLength === 0, "SETTINGS acknowledgement");
    return;
  }
  expectLength(payload.byteLength % 6 === 0, "SETTINGS");
  let windowDelta = 0;
  if (!conn.settingsReceived) {
    conn.peerMaxConcurrent = Number.POSITIVE_INFINITY; // unless these SETTINGS say otherwise
  }
  for (let at = 0; at < payload.byteLength; at += 6) {
    const id = payload.readUInt16BE(at);
    const value = payload.readUInt32BE(at + 2);
    switch (id) {
      case setting.maxConcurrentStreams:
        conn.peerMaxConcurrent = value;
        break;
      case setting.initialWindowSize:
        if (value > maxWindow) throw new H2ProtocolError(`SETTINGS_INITIAL_WINDOW_SIZE ${value} is too large`, h2Error.flowControlError);
        windowDelta += value - conn.peerInitialWindow;
        conn.peerInitialWindow = value;
        break;
      case setting.maxFrameSize:
        expect(value >= 16_384 && value <= 16_777_215, `SETTINGS_MAX_FRAME_SIZE ${value}`);
        conn.sender.maxFrameSize = value;
        break;
      default:
        break; // the header table size does not matter (the encoder never indexes); others are not the client's
    }
  }
  conn.settingsReceived = true;
  conn.acknowledge(frame(frameType.settings, frameFlag.ack, 0));
  conn.settingsChanged(windowDelta);
}

function receiveWindowUpdate(conn: FrameReceiver, streamId: number, payload: Buffer): void {
  expectLength(payload.byteLength === 4, "WINDOW_UPDATE");
  const increment = payload.readUInt32BE(0) & 0x7fff_ffff;
  if (streamId === 0) {
    expect(increment > 0, "WINDOW_UPDATE of 0 on the connection");
    conn.sender.window += increment;
    if (conn.sender.window > maxWindow) throw new H2ProtocolError("WINDOW_UPDATE past 2^31-1 on the connection", h2Error.flowControlError);
    conn.windowOpened(undefined);
    return;
  }
  const stream = conn.stream(streamId);
  if (stream === undefined) {
    expect(!conn.isIdle(streamId), `WINDOW_UPDATE on idle stream ${streamId}`);
    return;
  }
  if (increment === 0) {
    stream.close(h2Error.protocolError);
    return;
  }
  stream.sendWindow += increment;
  if (stream.sendWindow > maxWindow) {
    stream.close(h2Error.flowControlError);
    return;
  }
  conn.windowOpened(stream);
}

function expect(ok: boolean, what: string): void {
  if (!ok) throw new H2ProtocolError(`protocol error: ${what}`, h2Error.protocolError);
}

function expectLength(ok: boolean, what: string): void {
  if (!ok) throw new H2ProtocolError(`a ${what} frame of the wrong length`, h2Error.frameSizeError);
}
