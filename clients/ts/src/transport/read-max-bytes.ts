/**
 * defaultReadMaxBytes is the largest message a client accepts unless told otherwise: 32 MiB. That
 * is well above the largest message toolhost sends with its default limits (4 MiB: read chunks of
 * at most limits.max_chunk_size, 3 MiB, plus their framing; every other reply is kept under 4 MiB,
 * see maxSendMessageBytes in src/transport/grpc/transport-limits.ts) and far below what a
 * process can hold. A server configured for larger chunks needs a client with a larger limit.
 */
export const defaultReadMaxBytes = 32 * 1024 * 1024;

/** maxReadMaxBytes is the largest limit there can be: a gRPC message length is 32 bits. */
const maxReadMaxBytes = 0xffffffff;

/** checkedReadMaxBytes is a readMaxBytes option, defaulted and checked: a whole number from 1 to 2^32 - 1. */
export function checkedReadMaxBytes(readMaxBytes: number | undefined): number {
  const n = readMaxBytes ?? defaultReadMaxBytes;
  if (!Number.isSafeInteger(n) || n < 1 || n > maxReadMaxBytes) {
    throw new RangeError(
      `readMaxBytes must be a whole number from 1 to ${maxReadMaxBytes}, not ${String(readMaxBytes)}`,
    );
  }
  return n;
}
