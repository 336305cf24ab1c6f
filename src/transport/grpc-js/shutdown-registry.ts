/** ShutdownMember is a live call that a server's shutdown must abort. */
export interface ShutdownMember {
  /** Its index among the registry's members; -1 when it is not one. */
  shutdownAt: number;
  /** Called once, with the shutdown signal's reason, if the server shuts down while it is a member. */
  onShutdown(reason: unknown): void;
}

/**
 * ShutdownRegistry aborts, when a server's shutdown signal fires, the calls registered with it:
 * one listener on that long-lived signal for the whole server, and an array of members (each
 * knows its index; removing one moves the last into its place).
 *
 * Not a listener per call on the shutdown signal: Node's EventTarget keeps its listeners in a
 * linked list and leaves a removed one's links in place, so a removed listener that V8 had moved
 * into the old generation kept the next call's listener, closure and whole call reachable through
 * young-generation collections, and that one the next: every ReadFile call was promoted
 * (measured with --trace-gc-nvp under ghz: ~1.9 MB per scavenge). An array slot is cleared when
 * its member leaves. Hand-written: no library does this.
 */
export class ShutdownRegistry {
  readonly #members: ShutdownMember[] = [];

  constructor(signal: AbortSignal) {
    signal.addEventListener(
      "abort",
      () => {
        const members = this.#members.splice(0);
        for (const member of members) {
          member.shutdownAt = -1;
        }
        for (const member of members) {
          member.onShutdown(signal.reason);
        }
      },
      { once: true },
    );
  }

  /** add makes `member` one of the calls the shutdown aborts (once: a member is not added twice). */
  add(member: ShutdownMember): void {
    if (member.shutdownAt >= 0) return;
    member.shutdownAt = this.#members.length;
    this.#members.push(member);
  }

  /** remove takes `member` out, if it is one. */
  remove(member: ShutdownMember): void {
    const at = member.shutdownAt;
    if (at < 0) return;
    member.shutdownAt = -1;
    const last = this.#members.pop()!;
    if (last !== member) {
      this.#members[at] = last;
      last.shutdownAt = at;
    }
  }

  /** size is how many calls are members, for tests. */
  get size(): number {
    return this.#members.length;
  }
}

/** registries holds one registry per shutdown signal (a server's, long-lived). */
const registries = new WeakMap<AbortSignal, ShutdownRegistry>();

/** shutdownRegistryOf is the registry of `signal`, made on first use. */
export function shutdownRegistryOf(signal: AbortSignal): ShutdownRegistry {
  let registry = registries.get(signal);
  if (registry === undefined) {
    registry = new ShutdownRegistry(signal);
    registries.set(signal, registry);
  }
  return registry;
}
