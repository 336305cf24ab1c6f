import { IndexedList, type IndexedMember } from "./indexed-list.js";

/** ShutdownMember is a live call that a server's shutdown must abort (listIndex: -1 when it is not one). */
export interface ShutdownMember extends IndexedMember {
  /** Called once, with the shutdown signal's reason, if the server shuts down while it is a member. */
  onShutdown(reason: unknown): void;
}

/**
 * ShutdownRegistry aborts, when a server's shutdown signal fires, the calls registered with it:
 * one listener on that long-lived signal for the whole server, and its members in an IndexedList.
 *
 * Not a listener per call on the shutdown signal: Node's EventTarget keeps its listeners in a
 * linked list and leaves a removed one's links in place, so a removed listener that V8 had moved
 * into the old generation kept the next call's listener, closure and whole call reachable through
 * young-generation collections, and that one the next: every ReadFile call was promoted
 * (measured with --trace-gc-nvp under ghz: ~1.9 MB per scavenge). An IndexedList's slot is
 * cleared when its member leaves.
 */
export class ShutdownRegistry {
  readonly #members = new IndexedList<ShutdownMember>();

  constructor(signal: AbortSignal) {
    signal.addEventListener(
      "abort",
      () => {
        for (const member of this.#members.removeAll()) {
          member.onShutdown(signal.reason);
        }
      },
      { once: true },
    );
  }

  /** add makes `member` one of the calls the shutdown aborts (once: a member is not added twice). */
  add(member: ShutdownMember): void {
    this.#members.add(member);
  }

  /** remove takes `member` out, if it is one. */
  remove(member: ShutdownMember): void {
    this.#members.remove(member);
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
