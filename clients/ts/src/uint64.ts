/** Uint64Input is a 64-bit unsigned value as a caller may give it: a bigint or a safe integer. */
export type Uint64Input = number | bigint;

/**
 * toUint64 turns a number or bigint into the bigint the generated messages hold (protoc-gen-es
 * maps every 64-bit field to bigint). A number must be a non-negative safe integer (below 2^53),
 * so no precision is lost silently.
 */
export function toUint64(value: Uint64Input, field = "value"): bigint {
  if (typeof value === "bigint") {
    if (value < 0n || value > 0xffff_ffff_ffff_ffffn) {
      throw new RangeError(`${field} ${value} is outside uint64`);
    }
    return value;
  }
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${field} ${value} is not a non-negative safe integer; pass a bigint`);
  }
  return BigInt(value);
}

/** toSafeNumber turns a uint64 bigint into a number, refusing values at or above 2^53. */
export function toSafeNumber(value: bigint, field = "value"): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`${field} ${value} is above Number.MAX_SAFE_INTEGER; use the bigint`);
  }
  return Number(value);
}
