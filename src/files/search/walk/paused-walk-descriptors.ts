/**
 * maxPausedWalkDescriptors is the most folder descriptors that walks which gave their worker up
 * (their searcher paused) may keep open across the server. A paused walk keeps only the folders
 * of files its searcher already took and has not reported yet (it cannot close those under the
 * match workers); a walk whose folders would not fit keeps its worker instead, so descriptors
 * stay bounded whatever the number of paused searches.
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
