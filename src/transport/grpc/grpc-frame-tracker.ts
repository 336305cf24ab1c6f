/**
 * GrpcFrameTracker follows the gRPC length-prefixed framing of one request stream as its DATA
 * arrives, without keeping the bytes: how many messages arrived whole, and how many bytes of the
 * current message have arrived while it is still incomplete.
 *
 * A stream cut short inside its last message must not look complete to a handler: tracking the
 * framing lets the host's stream limits (node-http2/grpc-stream-limits.ts) tell the two apart.
 * The flags of each prefix are kept too, so a message flagged compressed on a call that declares
 * no encoding is refused rather than read as plain.
 */
export class GrpcFrameTracker {
  /** Messages that arrived whole. */
  messages = 0;
  /** Bytes of the current message (prefix included) that arrived; 0 between messages. */
  partialBytes = 0;
  /** The flag bytes of every message prefix so far, OR'ed: bit 0 is the compressed flag. */
  flags = 0;
  private prefix = Buffer.alloc(5);
  private prefixFill = 0;
  private bodyLeft = 0;

  /** inMessage tells whether the stream stopped inside a message (its prefix or its body). */
  get inMessage(): boolean {
    return this.prefixFill > 0 || this.bodyLeft > 0;
  }

  /** push accounts for one chunk of DATA; returns how many messages it completed. */
  push(data: Buffer): number {
    let at = 0;
    let completed = 0;
    while (at < data.length) {
      if (this.bodyLeft > 0) {
        const take = Math.min(this.bodyLeft, data.length - at);
        this.bodyLeft -= take;
        this.partialBytes += take;
        at += take;
      } else {
        const take = Math.min(5 - this.prefixFill, data.length - at);
        data.copy(this.prefix, this.prefixFill, at, at + take);
        this.prefixFill += take;
        this.partialBytes += take;
        at += take;
        if (this.prefixFill === 5) {
          this.flags |= this.prefix[0]!;
          this.bodyLeft = this.prefix.readUInt32BE(1);
          this.prefixFill = 0;
          if (this.bodyLeft > 0) {
            continue;
          }
        } else {
          continue;
        }
      }
      if (this.bodyLeft === 0 && this.prefixFill === 0) {
        this.messages += 1;
        completed += 1;
        this.partialBytes = 0;
      }
    }
    return completed;
  }
}
