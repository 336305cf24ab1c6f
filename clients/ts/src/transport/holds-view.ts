/** holdsViewBudget is how many values holdsView looks at before it gives up and answers true. */
const holdsViewBudget = 4096;

/**
 * holdsView tells whether `value` (a decoded message) refers to `buffer` through a typed-array
 * view: protobuf-es decodes `bytes` fields and unknown fields as views of the bytes it decoded,
 * while strings, numbers and nested messages are its own. It walks plain objects and arrays (a
 * message, its oneofs, lists and maps) iteratively and answers true, "cannot tell", past
 * holdsViewBudget values, so a large message costs a bounded look and its buffer is not reused.
 */
export function holdsView(value: unknown, buffer: ArrayBufferLike): boolean {
  const pending: unknown[] = [value];
  let budget = holdsViewBudget;
  while (pending.length > 0) {
    const v = pending.pop();
    if (--budget < 0) {
      return true;
    }
    if (typeof v !== "object" || v === null) {
      continue;
    }
    if (ArrayBuffer.isView(v)) {
      if (v.buffer === buffer) {
        return true;
      }
    } else if (Array.isArray(v)) {
      if (v.length > budget) {
        return true;
      }
      for (const item of v) pending.push(item);
    } else if (v instanceof Map) {
      for (const item of v.values()) pending.push(item);
    } else {
      for (const key in v) pending.push((v as Record<string, unknown>)[key]);
    }
    if (pending.length > budget) {
      return true; // more values left than it would look at
    }
  }
  return false;
}
