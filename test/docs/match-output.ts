/**
 * parseJsonStream splits grpcurl's output (or a doc's json block) into its JSON values: grpcurl
 * prints each message of a stream as one pretty-printed object after another.
 */
export function parseJsonStream(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{" || c === "[") {
      if (depth++ === 0) start = i;
    } else if (c === "}" || c === "]") {
      if (--depth === 0) values.push(JSON.parse(text.slice(start, i + 1)));
    }
  }
  return values;
}

/**
 * mismatch compares what a doc shows with what the server sent and describes the first
 * difference, or returns undefined. What matters is what the doc shows: a key the doc leaves out
 * is not compared, and a string with "..." in it matches any text in place of the dots (so
 * "9f86d0..." is any hash starting 9f86d0, and "..." anything). A list matches element by element
 * and must be as long, unless its last element is "...".
 */
export function mismatch(expected: unknown, actual: unknown, at = "$"): string | undefined {
  if (typeof expected === "string" && expected.includes("...")) {
    if (typeof actual !== "string" && typeof actual !== "number")
      return `${at}: expected text like ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
    const parts = expected.split("...");
    let rest = String(actual);
    if (!rest.startsWith(parts[0]!))
      return `${at}: ${JSON.stringify(actual)} does not start with ${JSON.stringify(parts[0])}`;
    rest = rest.slice(parts[0]!.length);
    for (const part of parts.slice(1)) {
      const found = rest.indexOf(part);
      if (found === -1) return `${at}: ${JSON.stringify(actual)} does not match ${JSON.stringify(expected)}`;
      rest = rest.slice(found + part.length);
    }
    return parts.at(-1) === "" || String(actual).endsWith(parts.at(-1)!)
      ? undefined
      : `${at}: ${JSON.stringify(actual)} does not end like ${JSON.stringify(expected)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${at}: expected a list, got ${JSON.stringify(actual)}`;
    const open = expected.at(-1) === "...";
    const items = open ? expected.slice(0, -1) : expected;
    if (open ? actual.length < items.length : actual.length !== items.length)
      return `${at}: expected ${items.length}${open ? " or more" : ""} items, got ${actual.length}`;
    for (const [i, item] of items.entries()) {
      const diff = mismatch(item, actual[i], `${at}[${i}]`);
      if (diff !== undefined) return diff;
    }
    return undefined;
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual))
      return `${at}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      if (!(key in actual))
        return `${at}.${key}: missing (the reply has ${Object.keys(actual).join(", ") || "no fields"})`;
      const diff = mismatch(value, (actual as Record<string, unknown>)[key], `${at}.${key}`);
      if (diff !== undefined) return diff;
    }
    return undefined;
  }
  return expected === actual ? undefined : `${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}
