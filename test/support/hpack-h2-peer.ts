import assert from "node:assert/strict";
import type * as net from "node:net";
import type { HpackDecoder } from "../../clients/ts/src/transport/h2/hpack-decoder.js";
import type { Field } from "./hpack-fixtures.js";
import { h2Frame } from "./raw-h2-peer.js";

/** H2Peer is a bare HTTP/2 client on a net.Socket: it writes frames and reassembles the header blocks it receives. */
export class H2Peer {
  private pending = Buffer.alloc(0);
  private block: Buffer[] = [];
  /** Every header block received, as sent. */
  readonly blocks: Buffer[] = [];
  continuations = 0;
  private blockStream = 0;
  /** For each stream: its header lists (headers, then trailers) and whether it ended. */
  readonly streams = new Map<number, { lists: Field[][]; ended: boolean }>();
  private waiters: (() => void)[] = [];
  error: Error | undefined;

  constructor(
    readonly socket: net.Socket,
    readonly decoder: HpackDecoder,
  ) {
    socket.on("data", (chunk: Buffer) => {
      try {
        this.pending = Buffer.concat([this.pending, chunk]);
        this.parse();
      } catch (err) {
        this.error = err as Error;
      }
      for (const w of this.waiters.splice(0)) w();
    });
    socket.on("error", (err) => {
      this.error = err;
      for (const w of this.waiters.splice(0)) w();
    });
    socket.on("close", () => {
      this.error ??= new Error("the server closed the connection");
      for (const w of this.waiters.splice(0)) w();
    });
  }

  frame(type: number, flags: number, stream: number, payload: Buffer): void {
    this.socket.write(h2Frame(type, flags, stream, payload));
  }

  private parse(): void {
    while (this.pending.length >= 9) {
      const length = this.pending.readUIntBE(0, 3);
      if (this.pending.length < 9 + length) return;
      const type = this.pending[3];
      const flags = this.pending[4] ?? 0;
      const stream = this.pending.readUInt32BE(5) & 0x7fffffff;
      let payload = this.pending.subarray(9, 9 + length);
      this.pending = this.pending.subarray(9 + length);
      const entry = () => {
        let s = this.streams.get(stream);
        if (!s) this.streams.set(stream, (s = { lists: [], ended: false }));
        return s;
      };
      if (type === 0x1 /* HEADERS */) {
        if (flags & 0x8) payload = payload.subarray(1, payload.length - (payload[0] ?? 0));
        if (flags & 0x20) payload = payload.subarray(5);
        this.block = [payload];
        this.blockStream = stream;
        if (flags & 0x1) entry().ended = true;
      } else if (type === 0x9 /* CONTINUATION */) {
        assert.equal(stream, this.blockStream);
        this.block.push(payload);
        this.continuations++;
      } else if (type === 0x0 /* DATA */) {
        if (flags & 0x1) entry().ended = true;
        continue;
      } else if (type === 0x4 /* SETTINGS */) {
        if (!(flags & 0x1)) this.frame(0x4, 0x1, 0, Buffer.alloc(0));
        continue;
      } else if (type === 0x3 || type === 0x7 /* RST_STREAM, GOAWAY */) {
        throw new Error(`peer sent frame type ${type}: ${payload.toString("hex")}`);
      } else {
        continue;
      }
      if (flags & 0x4 /* END_HEADERS */) {
        this.blocks.push(Buffer.concat(this.block));
        entry().lists.push(this.decoder.decode(Buffer.concat(this.block)));
      }
    }
  }

  async ended(stream: number): Promise<Field[][]> {
    for (;;) {
      if (this.error) throw this.error;
      const s = this.streams.get(stream);
      if (s?.ended && s.lists.length === 2) return s.lists;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }
}
