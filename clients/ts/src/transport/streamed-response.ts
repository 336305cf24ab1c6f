import { GrpcResponseReader } from "./grpc-response-reader.js";

/**
 * StreamedResponse iterates the messages of a server-streaming call still waiting for its
 * connection (one that started in the caller's turn is iterated by its reader): each next()
 * is the reader's, so a waiting caller is handed each message from the HTTP/2 stream's 'data'
 * listener (no async generator or promise chain in between). A call still waiting for its
 * connection is iterated once it has one; its failure surfaces at the first next(). Leaving a
 * for-await early (break, return, throw) cancels the call, so its stream does not stay open,
 * paused, holding the server's side of it.
 */
export class StreamedResponse<T> implements AsyncIterableIterator<T> {
  #reader: GrpcResponseReader<T> | undefined;
  readonly #pending: Promise<GrpcResponseReader<T>> | undefined;

  constructor(started: GrpcResponseReader<T> | Promise<GrpcResponseReader<T>>) {
    if (started instanceof GrpcResponseReader) {
      this.#reader = started;
    } else {
      this.#pending = started;
      started.then(
        (reader) => (this.#reader = reader),
        () => {}, // reported by next(); not unhandled if nobody iterates
      );
    }
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    return this.#reader !== undefined ? this.#reader.next() : this.#pending!.then((reader) => reader.next());
  }

  return(): Promise<IteratorResult<T>> {
    const cancel = (reader: GrpcResponseReader<T>) => void reader.return();
    if (this.#reader !== undefined) {
      cancel(this.#reader);
    } else {
      this.#pending!.then(cancel, () => {});
    }
    return Promise.resolve({ done: true, value: undefined });
  }
}
