/** IndexedMember is an object an IndexedList can hold: it carries its own index there. */
export interface IndexedMember {
  /** Its index in the list that holds it; -1 when no list does. */
  listIndex: number;
}

/**
 * IndexedList is an unordered set of per-call objects kept in a plain array, each member knowing
 * its own index: add and remove take constant time (removing one moves the last member into its
 * place) and a member that leaves has its slot cleared at once.
 *
 * Not a Set, a WeakMap or an EventTarget's listeners: measured under ghz (--trace-gc-nvp), each of
 * those kept every call's objects reachable through V8's young-generation collections, so that
 * every call was copied into the old generation (1.9-2.5 MB per scavenge against 40 KB). The
 * stream guard's armed watches and the shutdown registry's calls are IndexedLists. Hand-written:
 * no library offers an intrusive index like this, and it is a few lines.
 *
 * A member belongs to at most one IndexedList at a time (it has one listIndex).
 */
export class IndexedList<T extends IndexedMember> {
  readonly #members: T[] = [];

  /** add makes `member` one of the list's (nothing if it is one already). */
  add(member: T): void {
    if (member.listIndex >= 0) return;
    member.listIndex = this.#members.length;
    this.#members.push(member);
  }

  /** remove takes `member` out, if it is one; the last member takes its index. */
  remove(member: T): void {
    const at = member.listIndex;
    if (at < 0) return;
    member.listIndex = -1;
    const last = this.#members.pop()!;
    if (last !== member) {
      this.#members[at] = last;
      last.listIndex = at;
    }
  }

  /** removeAll empties the list and returns what it held, each member marked as out of it. */
  removeAll(): T[] {
    const members = this.#members.splice(0);
    for (const member of members) {
      member.listIndex = -1;
    }
    return members;
  }

  /** at is the member at index `i` (0 <= i < length). */
  at(i: number): T {
    return this.#members[i]!;
  }

  /** length is how many members the list holds. */
  get length(): number {
    return this.#members.length;
  }
}
