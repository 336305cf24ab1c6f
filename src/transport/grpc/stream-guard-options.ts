/** StreamGuardOptions are the per-connection and per-process bounds the guard enforces. */
export interface StreamGuardOptions {
  /** Streams a connection may have open; the next one is refused alone (REFUSED_STREAM). */
  readonly maxStreamsPerConnection: number;
  /** Bytes of incomplete request messages held per connection before the stream is reset. */
  readonly maxReceiveBufferBytesPerConnection: number;
  /** The same, across every connection of the server. */
  readonly maxReceiveBufferBytes: number;
  /** How long a begun request message may take to arrive whole, in ms. */
  readonly receiveMessageTimeoutMs: number;
  /** Tells whether a method path takes exactly one request message (unary, server-streaming). */
  readonly singleRequest: (path: string) => boolean;
  /** Called as each stream closes (its response, trailers included, has left). */
  readonly onStreamClosed?: (() => void) | undefined;
}
