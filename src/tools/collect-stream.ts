import { create, toJson, type DescMessage, type JsonObject, type Message } from "@bufbuild/protobuf";

/** MessageSize is how many bytes a collected message counts for against the budget. */
export type MessageSize = (message: Message) => number;

/** CollectedStream is what was gathered from a server stream before it ended or a bound hit. */
export interface CollectedStream {
  readonly messages: Message[];
  /** Why collection stopped early: "bytes" (over the budget), "time", or undefined (it ended, or settled). */
  readonly cutBy: "bytes" | "time" | undefined;
}

/** SettleOptions end a collection early: once `settleAfter` says a message is what was waited for, `settleMs` more. */
export interface SettleOptions {
  readonly settleAfter: (message: Message) => boolean;
  readonly settleMs: number;
}

/**
 * collectStream reads a handler's server stream into messages until it ends, until their size
 * passes `maxBytes` (`sizeOf`, by default each message's proto JSON length), or until `maxMs` pass (a watch never ends by itself), or, with `settle`, a
 * moment after the message waited for (a watch's first change, and the ones right behind it).
 * Stopping early returns from the generator, so the handler's finally blocks run and its files
 * close.
 */
export async function collectStream(
  output: DescMessage,
  stream: AsyncIterable<unknown>,
  maxBytes: number,
  maxMs: number,
  settle?: SettleOptions,
  sizeOf: MessageSize = (message) => JSON.stringify(toJson(output, message) as JsonObject).length,
): Promise<CollectedStream> {
  const messages: Message[] = [];
  let bytes = 0;
  const iterator = stream[Symbol.asyncIterator]();
  let deadline = Date.now() + maxMs;
  let settled = false;
  let timer: NodeJS.Timeout | undefined;
  try {
    for (;;) {
      const remaining = deadline - Date.now();
      const timeout = new Promise<"time">(
        (resolve) => (timer = setTimeout(() => resolve("time"), Math.max(0, remaining))),
      );
      const next = await Promise.race([iterator.next(), timeout]);
      clearTimeout(timer);
      if (next === "time") return { messages, cutBy: settled ? undefined : "time" };
      if (next.done === true) return { messages, cutBy: undefined };
      const message = create(output, next.value as never) as Message;
      messages.push(message);
      if (settle !== undefined && !settled && settle.settleAfter(message)) {
        settled = true;
        deadline = Math.min(deadline, Date.now() + settle.settleMs);
      }
      bytes += sizeOf(message);
      if (bytes > maxBytes) return { messages, cutBy: "bytes" };
    }
  } finally {
    clearTimeout(timer);
    // Ends the handler's generator (closing its files) unless it already ended.
    void iterator.return?.(undefined);
  }
}
