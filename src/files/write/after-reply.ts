/**
 * afterReply runs `fn` after a reply the caller is about to send has left whole, trailers
 * included: on a timer (Node's shortest, ~1 ms), which fires only after the event loop's turns
 * that write the reply. Work done for a change's sake but not for its answer (freeing the file a
 * rename replaced, the history line's fsync) asked of the thread pool any sooner came back, and
 * ran on the event loop, between the reply's message and its trailers (the end of the call, which
 * the client waits for): strace showed the trailers 0.1-0.6 ms late. Immediates were not enough:
 * a reply's trailers go out one or two turns after its message, and the history line is written
 * before the answer, which waits for the folder's fsync.
 */
export function afterReply(fn: () => void): void {
  setTimeout(fn, 0);
}
