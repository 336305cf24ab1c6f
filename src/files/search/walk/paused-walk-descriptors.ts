/**
 * maxPausedWalkDescriptors is the most folder descriptors that searches whose walk gave its
 * worker up (their client paused) may keep open across the server: those of the files they took
 * and have not reported yet (no walk may close them under the match workers). A walk whose
 * searcher's descriptors would not fit keeps its worker instead, so the descriptors of all
 * searches stay bounded (maxWalkers walking ones, plus this) whatever the number of paused ones.
 */
let maxPausedWalkDescriptors = 4096;

let held = 0;

/** pausedWalkDescriptors is how many descriptors paused walks keep open now (reserved included). */
export function pausedWalkDescriptors(): number {
  return held;
}

/** pausedWalkDescriptorLimit is the current maxPausedWalkDescriptors. */
export function pausedWalkDescriptorLimit(): number {
  return maxPausedWalkDescriptors;
}

/** setPausedWalkDescriptorLimit changes maxPausedWalkDescriptors (tests) and returns the old one. */
export function setPausedWalkDescriptorLimit(limit: number): number {
  const old = maxPausedWalkDescriptors;
  maxPausedWalkDescriptors = limit;
  return old;
}

/** reservePausedDescriptors takes `count` of the budget; false (nothing taken) when it does not fit. */
export function reservePausedDescriptors(count: number): boolean {
  if (held + count > maxPausedWalkDescriptors) return false;
  held += count;
  return true;
}

/** releasePausedDescriptors gives `count` back, once closed or handed to the searcher to close. */
export function releasePausedDescriptors(count: number): void {
  held -= count;
}
