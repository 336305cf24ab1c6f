/**
 * readDelimited yields the messages of a size-delimited stream, as the conformance runner writes
 * them: each a 32-bit big-endian length, then that many bytes. A stream that ends inside a message
 * is an error.
 */
export async function* readDelimited(input: AsyncIterable<Buffer>): AsyncGenerator<Uint8Array> {
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of input) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
      const size = pending.readUInt32BE(0);
      yield pending.subarray(4, 4 + size);
      pending = pending.subarray(4 + size);
    }
  }
  if (pending.length > 0) {
    throw new Error(`stdin ended inside a message (${pending.length} bytes left)`);
  }
}

/** writeDelimited writes one size-delimited message in a single write, so concurrent calls' results never interleave. */
export function writeDelimited(output: NodeJS.WritableStream, message: Uint8Array): void {
  const framed = Buffer.allocUnsafe(4 + message.length);
  framed.writeUInt32BE(message.length, 0);
  framed.set(message, 4);
  output.write(framed);
}
