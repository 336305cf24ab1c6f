import { Code, ConnectError } from "@connectrpc/connect";

/** Outcome is how a call ended within its bound: "ok", its ConnectError's code name, or "still running" (it hung). */
export interface Outcome {
  readonly outcome: string;
  readonly error?: ConnectError;
}

/** settle waits at most `boundMs` for `call` to end and says how it ended. */
export async function settle(call: Promise<unknown>, boundMs = 5_000): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<Outcome>((done) => (timer = setTimeout(() => done({ outcome: "still running" }), boundMs)));
  const ended = call.then(
    (): Outcome => ({ outcome: "ok" }),
    (err: unknown): Outcome => (err instanceof ConnectError ? { outcome: Code[err.code], error: err } : { outcome: `not a ConnectError: ${String(err)}` }),
  );
  try {
    return await Promise.race([ended, bound]);
  } finally {
    clearTimeout(timer);
  }
}
