/**
 * TierName is how far a call may go, from reading to deleting: seed 002's T1 read, T2 write,
 * T3 edit, and delete. A scope allows every tier up to its highest.
 */
export type TierName = "read" | "write" | "edit" | "delete";

/** tierNames are the tiers in order, lowest first. */
export const tierNames: readonly TierName[] = Object.freeze(["read", "write", "edit", "delete"]);

/** tierRank is a tier's place in tierNames: read 0 ... delete 3. */
export function tierRank(tier: TierName): number {
  return tierNames.indexOf(tier);
}

/** tierAllows tells whether a scope whose highest tier is `highest` may make a call of `needed`. */
export function tierAllows(highest: TierName, needed: TierName): boolean {
  return tierRank(needed) <= tierRank(highest);
}

/** isTierName tells whether a string names a tier. */
export function isTierName(value: unknown): value is TierName {
  return typeof value === "string" && (tierNames as readonly string[]).includes(value);
}
