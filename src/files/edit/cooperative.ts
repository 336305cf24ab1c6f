import { setImmediate as yieldToLoop } from "node:timers/promises";
import { throwIfAborted } from "../read/abortable.js";

/** sliceMs is how long a cooperative loop runs before it lets other calls have the event loop. */
const sliceMs = 10;
/** checkEvery is how many matches a loop handles between looks at the clock. */
const checkEvery = 4096;

/**
 * Slicer lets a long loop over one big text give the event loop back every few milliseconds and
 * stop when its call is cancelled: a replace-all with millions of matches in a 64 MiB file would
 * otherwise hold the loop for seconds.
 */
class Slicer {
  private started = performance.now();
  private steps = 0;
  constructor(private readonly signal: AbortSignal | undefined) {}

  /** due counts one unit of work and says whether the slice is used up (then call pause). */
  due(): boolean {
    return ++this.steps % checkEvery === 0 && performance.now() - this.started >= sliceMs;
  }

  /** pause gives the event loop back, then stops a cancelled call. */
  async pause(): Promise<void> {
    await yieldToLoop();
    throwIfAborted(this.signal);
    this.started = performance.now();
  }
}

/** countOccurrences counts `needle` in `text` left to right without overlap, yielding as it goes. */
export async function countOccurrences(text: string, needle: string, signal?: AbortSignal): Promise<number> {
  const slicer = new Slicer(signal);
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    count += 1;
    if (slicer.due()) await slicer.pause();
  }
  return count;
}

/**
 * replaceEvery replaces every occurrence of `needle` by `replacement`, literally (no "$&"
 * patterns), yielding as it goes. Pieces are joined in groups so no array of millions of strings
 * is ever held, as split/join would.
 */
export async function replaceEvery(
  text: string,
  needle: string,
  replacement: string,
  signal?: AbortSignal,
): Promise<string> {
  const slicer = new Slicer(signal);
  const groups: string[] = [];
  let pieces: string[] = [];
  let from = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, from)) {
    pieces.push(text.slice(from, at), replacement);
    from = at + needle.length;
    if (pieces.length >= 2 * checkEvery) {
      groups.push(pieces.join(""));
      pieces = [];
    }
    if (slicer.due()) await slicer.pause();
  }
  pieces.push(text.slice(from));
  groups.push(pieces.join(""));
  return groups.join("");
}
