import type { PeerConnection } from "./raw-h2-peer.js";

/** burstBytes is about how much one socket write of a flood carries. */
const burstBytes = 64 * 1024;

/** FloodEnd is how a flood ended: the client closed the connection, all was sent, or neither within the bound. */
export type FloodEnd = "closed" | "sent all" | "still sending";

/** Flood is a flood of frames under way: what went out so far, and a way to wait for its end. */
export interface Flood {
  /** Bytes handed to the socket so far. */
  readonly sentBytes: () => number;
  /** ended waits at most `boundMs` for the flood to end and says how it ended. */
  readonly ended: (boundMs?: number) => Promise<FloodEnd>;
  /** closed waits at most `boundMs` for the connection to close (after the flood, too) and tells whether it did. */
  readonly closed: (boundMs?: number) => Promise<boolean>;
}

/**
 * flood writes `unit` (one or more frames) to a RawH2Peer connection again and again, as fast as
 * the client takes it in (a write of about 64 KiB, then the next once the socket drains), until
 * `capBytes` have gone or the connection closes: a peer that floods the client with frames, but
 * never sends more than the cap.
 */
export function flood(conn: PeerConnection, unit: Buffer, capBytes: number): Flood {
  const burst = Buffer.concat(Array.from({ length: Math.max(1, Math.floor(burstBytes / unit.byteLength)) }, () => unit));
  const socket = conn.socket;
  let sent = 0;
  let end: FloodEnd | undefined;
  const waiters: (() => void)[] = [];
  const finish = (how: FloodEnd) => {
    end ??= how;
    for (const w of waiters.splice(0)) w();
  };
  const isClosed = new Promise<true>((resolve) => socket.once("close", () => resolve(true)));
  socket.once("close", () => finish("closed"));
  const pump = () => {
    while (end === undefined && !socket.destroyed) {
      if (sent >= capBytes) {
        finish("sent all");
        return;
      }
      sent += burst.byteLength;
      if (!socket.write(burst)) {
        socket.once("drain", pump);
        return;
      }
    }
  };
  pump();
  return {
    sentBytes: () => sent,
    ended: (boundMs = 10_000) =>
      new Promise<FloodEnd>((resolve) => {
        if (end !== undefined) return resolve(end);
        const timer = setTimeout(() => resolve("still sending"), boundMs);
        waiters.push(() => {
          clearTimeout(timer);
          resolve(end!);
        });
      }),
    closed: async (boundMs = 10_000) => {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), boundMs)));
      try {
        return await Promise.race([isClosed, bound]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
