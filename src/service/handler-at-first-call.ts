import type { HandlerContext } from "@connectrpc/connect";

type Handler<I, O> = (input: I, context: HandlerContext) => O;

/**
 * unaryAtFirstCall is a unary handler whose module is imported at the method's first call, not
 * when the service is built, so that an idle server does not load what only that method needs
 * (ADR 0008). `load` runs once, concurrent first calls included (one handler, whatever state it
 * keeps); the first calls wait for it, later ones go to the loaded handler directly, so one that
 * answers synchronously still does.
 */
export function unaryAtFirstCall<I, O>(
  load: () => Promise<Handler<I, O>>,
): (input: I, context: HandlerContext) => O | Promise<Awaited<O>> {
  const loaded = loadOnce(load);
  return (input, context) => {
    const handler = loaded.handler;
    if (handler !== undefined) return handler(input, context);
    return loaded.wait().then((h) => h(input, context)) as Promise<Awaited<O>>;
  };
}

/**
 * streamAtFirstCall is unaryAtFirstCall for a method that answers with a stream: until the
 * handler is loaded, one async generator waits for it and passes its messages on; after, the
 * handler's own stream is returned as it is.
 */
export function streamAtFirstCall<I, O>(
  load: () => Promise<Handler<I, AsyncIterable<O>>>,
): Handler<I, AsyncIterable<O>> {
  const loaded = loadOnce(load);
  return (input, context) => {
    const handler = loaded.handler;
    if (handler !== undefined) return handler(input, context);
    return (async function* () {
      yield* (await loaded.wait())(input, context);
    })();
  };
}

interface LoadedOnce<H> {
  handler: H | undefined;
  wait(): Promise<H>;
}

function loadOnce<H>(load: () => Promise<H>): LoadedOnce<H> {
  let pending: Promise<H> | undefined;
  const loaded: LoadedOnce<H> = {
    handler: undefined,
    wait: () => {
      pending ??= load().then((handler) => {
        loaded.handler = handler;
        return handler;
      });
      return pending;
    },
  };
  return loaded;
}
