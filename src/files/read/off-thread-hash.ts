import { createHash, type Hash } from "node:crypto";
import { Worker } from "node:worker_threads";
import { ToolhostError } from "../../errors/toolhost-error.js";

/**
 * workerSource is the hash worker, inline so that it runs the same from src/ under tsx and from
 * dist/: it keeps one sha256 per stream id and hashes the shared memory it is pointed at, in the
 * order the updates were posted, acknowledging each so the memory can be reused.
 */
const workerSource = `
const { parentPort } = require("node:worker_threads");
const { createHash } = require("node:crypto");
const { read } = require("node:fs");
const hashes = new Map();
parentPort.on("message", (m) => {
  if (m.op === "update") {
    let hash = hashes.get(m.id);
    if (hash === undefined) { hash = createHash("sha256"); hashes.set(m.id, hash); }
    hash.update(new Uint8Array(m.memory, m.offset, m.length));
    if (m.memory instanceof SharedArrayBuffer) {
      parentPort.postMessage({ id: m.id, op: "updated" });
    } else {
      // A moved chunk goes back to die young on the main thread: this thread allocates too little
      // to collect garbage often, and would hold tens of MiB of hashed chunks until it did.
      parentPort.postMessage({ id: m.id, op: "updated", memory: m.memory }, [m.memory]);
    }
  } else if (m.op === "digest") {
    const hash = hashes.get(m.id) ?? createHash("sha256");
    hashes.delete(m.id);
    parentPort.postMessage({ id: m.id, op: "digest", hex: hash.digest("hex") });
  } else if (m.op === "drop") {
    hashes.delete(m.id);
  } else if (m.op === "file") {
    hashFile(m);
  }
});
// hashFile hashes a descriptor the main thread opened and keeps open until the answer, reading
// it through the thread pool a piece at a time, so this thread still answers updates between
// pieces; it stops at the next piece once the main thread sets m.stop[0].
function hashFile(m) {
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(m.pieceBytes);
  let position = 0;
  const step = () => read(m.fd, buffer, 0, buffer.byteLength, position, (err, n) => {
    if (err) return parentPort.postMessage({ id: m.id, op: "file", error: err.code ?? "EIO" });
    if (Atomics.load(m.stop, 0) !== 0) return parentPort.postMessage({ id: m.id, op: "file" });
    if (n === 0) return parentPort.postMessage({ id: m.id, op: "file", hex: hash.digest("hex") });
    hash.update(n === buffer.byteLength ? buffer : buffer.subarray(0, n));
    position += n;
    step();
  });
  step();
}
`;

interface Waiter {
  readonly updated: Array<() => void>;
  digest?: (hex: string) => void;
  /** A file hash's answer (hashFileOffThread): its digest, none when stopped, or a read's error code. */
  file?: (hex: string | undefined, error: string | undefined) => void;
  fail?: (error: Error) => void;
  /** Set when the worker stopped with this hash in progress: its state is gone with the worker. */
  lost?: ToolhostError;
  /** Set by discard: the entry goes once the worker has answered the updates posted before. */
  discarded?: boolean;
}

let worker: Worker | undefined;
let nextId = 1;
const waiters = new Map<number, Waiter>();
/** outstanding counts requests awaiting an answer; the worker keeps the process alive only then. */
let outstanding = 0;

function post(target: Worker, message: object, transfer: ArrayBuffer[] = []): void {
  if (outstanding++ === 0) {
    target.ref();
  }
  target.postMessage(message, transfer);
}

/** handedOver holds chunks whose producer gave up their memory (see handOver). */
const handedOver = new WeakSet<Uint8Array>();

/**
 * handOver marks `chunk` as given up by its producer: nothing reads or reuses its memory once it
 * has been consumed, so its consumer may hash it in place and give its memory back for reuse
 * (chunk-buffers.ts' releaseChunkMemory), or move (transfer) it to the hash worker, instead of
 * copying it. UploadFile's request chunks are: each is a view of the memory the gRPC host put
 * that one message together in.
 */
export function handOver(chunk: Uint8Array): void {
  handedOver.add(chunk);
}

/** isHandedOver tells whether `chunk` was handed over (handOver). */
export function isHandedOver(chunk: Uint8Array): boolean {
  return handedOver.has(chunk);
}

/** maxSlack is how much larger than a chunk its ArrayBuffer may be for it to be moved: the framing. */
const maxSlack = 64;

/** movable tells whether `chunk`'s memory is its own, so that transferring it takes nothing else along. */
function movable(chunk: Uint8Array): chunk is Uint8Array & { buffer: ArrayBuffer } {
  return chunk.buffer instanceof ArrayBuffer && chunk.buffer.byteLength - chunk.byteLength <= maxSlack;
}

function answered(): void {
  if (--outstanding === 0) {
    worker?.unref();
  }
}

function hashWorker(): Worker {
  if (worker === undefined) {
    const started = new Worker(workerSource, { eval: true });
    worker = started;
    started.on("message", (m: { id: number; op: string; hex?: string; error?: string }) => {
      if (worker !== started) {
        return; // a lost worker's last answers: its hashes have failed already
      }
      answered();
      const waiter = waiters.get(m.id);
      if (m.op === "updated") {
        waiter?.updated.shift()?.();
        if (waiter?.discarded === true && waiter.updated.length === 0) waiters.delete(m.id);
      } else if (m.op === "digest") {
        waiters.delete(m.id);
        waiter?.digest?.(m.hex ?? "");
      } else if (m.op === "file") {
        waiters.delete(m.id);
        waiter?.file?.(m.hex, m.error);
      }
    });
    // A worker that dies (an uncaught error, or terminated) loses every hash in progress: each
    // fails, and is never continued on a new worker, where it would restart from nothing and
    // give a sha256 of only the later bytes.
    started.on("error", (error: Error) => lose(started, error));
    started.on("exit", (code: number) => lose(started, new Error(`the hash worker exited with code ${code}`)));
    // After the listeners: attaching a 'message' listener refs the worker again.
    if (outstanding === 0) {
      worker.unref();
    }
  }
  return worker;
}

/**
 * lose fails every hash in progress on `dead` once it stopped, and lets the next hash start a new
 * worker. Waiting updates are let go (their memory is free: the worker is gone).
 */
function lose(dead: Worker, cause: Error): void {
  if (worker !== dead) {
    return;
  }
  worker = undefined;
  outstanding = 0;
  const error = new ToolhostError(
    "HASH_FAILED",
    "The server's hashing thread stopped while it hashed this content; nothing was changed. Retry the call.",
    {},
    { cause },
  );
  for (const waiter of waiters.values()) {
    waiter.lost = error;
    waiter.updated.splice(0).forEach((resolve) => resolve());
    waiter.fail?.(error);
  }
  waiters.clear();
}

/**
 * OffThreadSha256 is a streaming SHA-256 that hashes on a worker thread, so that on a read the
 * hashing (over half of the event loop's busy time for 1 MiB chunks) overlaps with reading the
 * next chunk and writing this one to the socket instead of stalling both.
 *
 * Only chunks in shared memory (SharedArrayBuffer, see chunk-buffers.ts) go to the worker, which
 * reads them in place, or chunks moved there (update's `move`); `update` returns a promise that
 * settles once the worker is done with the chunk, after which its memory may be reused. Anything
 * else, or every chunk if the worker cannot start, is hashed here on the calling thread, in order.
 */
export class OffThreadSha256 {
  private readonly id = nextId++;
  private local: Hash | undefined;
  /** This hash's entry while its state lives on the worker; marked lost if the worker stops. */
  private remote: Waiter | undefined;

  /** offThread false hashes everything here (small chunks, where a message per chunk costs more). */
  constructor(readonly offThread = true) {}

  /**
   * update adds `chunk` to the hash; the promise settles when the chunk's memory is free again.
   * With `move`, a chunk whose ArrayBuffer holds little else (a handed-over message) is
   * transferred to the worker: it is detached here and must not be read again. Throws HASH_FAILED
   * if the worker holding this hash stopped.
   */
  update(chunk: Uint8Array, move = false): Promise<void> | undefined {
    if (this.remote?.lost !== undefined) {
      throw this.remote.lost;
    }
    const moving = move && movable(chunk);
    if (this.offThread && this.local === undefined && (moving || chunk.buffer instanceof SharedArrayBuffer)) {
      const target = tryWorker();
      if (target !== undefined) {
        const waiter = (this.remote ??= { updated: [] });
        waiters.set(this.id, waiter);
        const done = new Promise<void>((resolve) => waiter.updated.push(resolve));
        post(
          target,
          { op: "update", id: this.id, memory: chunk.buffer, offset: chunk.byteOffset, length: chunk.byteLength },
          moving ? [chunk.buffer as ArrayBuffer] : [],
        );
        return done;
      }
    }
    if (this.remote !== undefined) {
      // Mixed chunks: hand this one over as a copy, so the order of updates is kept.
      const copy = new Uint8Array(new SharedArrayBuffer(chunk.byteLength));
      copy.set(chunk);
      return this.update(copy);
    }
    this.local ??= createHash("sha256");
    this.local.update(chunk);
    return undefined;
  }

  /**
   * digest returns the lowercase hex SHA-256 of everything passed to update; it rejects with
   * HASH_FAILED if the worker holding this hash stopped first.
   */
  async digest(): Promise<string> {
    const waiter = this.remote;
    if (waiter === undefined) {
      return (this.local ?? createHash("sha256")).digest("hex");
    }
    if (waiter.lost !== undefined) {
      throw waiter.lost;
    }
    return new Promise<string>((resolve, reject) => {
      waiter.digest = resolve;
      waiter.fail = reject;
      post(hashWorker(), { op: "digest", id: this.id });
    });
  }

  /**
   * discard forgets an unfinished hash (a cancelled stream). The worker still answers the
   * updates posted before the drop, and each answer settles its update's promise: the chunk's
   * memory and the room it holds in hashingGate are let go then. (Forgetting the entry at once
   * left those promises unsettled, and every cancelled large read kept up to two chunks of
   * hashingGate's 16 MiB for good, until every large read of the process waited for ever.)
   */
  discard(): void {
    const waiter = this.remote;
    if (waiter !== undefined) {
      waiter.discarded = true;
      if (waiter.updated.length === 0) waiters.delete(this.id);
      worker?.postMessage({ op: "drop", id: this.id });
    }
  }
}

/** filePieceBytes is how much of a file the hash worker reads at a time (hashFileOffThread). */
const filePieceBytes = 1024 * 1024;

/**
 * hashFileOffThread is the lowercase hex SHA-256 of the file open as `fd`, from its start to its
 * end, read and hashed by the hash worker, so that this thread makes no read, copy or message per
 * piece; undefined when `signal` aborted first. The caller keeps `fd` open until the promise
 * settles: the worker stops at its next piece once aborted, and answers only when no read of its
 * own is under way. Rejects with HASH_FAILED when the worker stops (or cannot start), and with
 * the read's error code (an Error with `code`) when a read fails.
 */
export function hashFileOffThread(fd: number, signal: AbortSignal): Promise<string | undefined> {
  const target = tryWorker();
  if (target === undefined) {
    return Promise.reject(
      new ToolhostError("HASH_FAILED", "The server's hashing thread could not start; nothing was changed.", {}),
    );
  }
  const id = nextId++;
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const onAbort = () => Atomics.store(stop, 0, 1);
  signal.addEventListener("abort", onAbort, { once: true });
  if (signal.aborted) onAbort();
  return new Promise<string | undefined>((resolve, reject) => {
    const waiter: Waiter = {
      updated: [],
      file: (hex, error) =>
        error === undefined
          ? resolve(hex)
          : reject(Object.assign(new Error(`reading the file to hash failed: ${error}`), { code: error })),
      fail: reject,
    };
    waiters.set(id, waiter);
    post(target, { op: "file", id, fd, stop, pieceBytes: filePieceBytes });
  }).finally(() => signal.removeEventListener("abort", onAbort));
}

/**
 * startHashWorker starts the hash worker now rather than on the first large read, so that a
 * server's thread and descriptor counts are steady from its first call.
 */
export function startHashWorker(): void {
  tryWorker();
}

/**
 * readHashFailed is the HASH_FAILED a read of `clientPath` fails with when the hash worker stopped
 * while it hashed the content read (see OffThreadSha256): the summary's sha256 cannot be given.
 */
export function readHashFailed(clientPath: string, cause: unknown): ToolhostError {
  return new ToolhostError(
    "HASH_FAILED",
    `Reading "${clientPath}" failed: the server's hashing thread stopped while it hashed the bytes read, so their sha256 cannot be given; read it again.`,
    { path: clientPath },
    { cause },
  );
}

/**
 * stopHashWorkerForTests terminates the hash worker as a crash would, for tests only (no client
 * can reach it), and returns how many hashes were in progress on it.
 */
export async function stopHashWorkerForTests(): Promise<number> {
  const current = worker;
  if (current === undefined) {
    return 0;
  }
  const inProgress = waiters.size;
  await current.terminate();
  lose(current, new Error("terminated by a test"));
  return inProgress;
}

function tryWorker(): Worker | undefined {
  try {
    return hashWorker();
  } catch {
    return undefined;
  }
}
