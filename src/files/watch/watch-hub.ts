import { FairTurns } from "./fair-turns.js";
import { WatchBudget } from "./watch-budget.js";
import type { WatchLimits } from "./watch-types.js";

/**
 * watchTurns is how many slices of watch work (listing, checking changed names) run at once
 * across the server: fewer than libuv's four thread-pool threads, so other calls' filesystem
 * work never waits behind watches.
 */
export const watchTurns = 2;

/** WatchHub is what every WatchFiles stream of one server shares: the bounds and the turns. */
export class WatchHub {
  readonly budget: WatchBudget;
  readonly turns = new FairTurns(watchTurns);

  constructor(readonly limits: WatchLimits) {
    this.budget = new WatchBudget(limits);
  }
}
