import type { ToolhostError } from "../errors/toolhost-error.js";

/**
 * Validity is whether the credential a call was admitted with is still in force. The token
 * store holds one per loaded entry and revokes it when a reload removes or changes the entry,
 * when the file is deleted, and at the entry's expiry; each admitted call watches its
 * principal's validity for as long as it runs (guard-service.ts), so a revocation reaches every
 * open call of that credential at once.
 */
export interface Validity {
  /** False for a credential that can never be revoked (the anonymous principal): no call watches it. */
  readonly revocable: boolean;
  /** The refusal (UNAUTHENTICATED or TOKEN_EXPIRED) once revoked; undefined while in force. */
  readonly revoked: ToolhostError | undefined;
  /**
   * watch calls onRevoke once, when the credential is revoked (at once if it already is), and
   * returns the function that stops watching; a call stops when it ends, so nothing is kept.
   */
  watch(onRevoke: (reason: ToolhostError) => void): () => void;
}

/** CredentialValidity is the Validity of one credential in force, revoked once by its owner. */
export class CredentialValidity implements Validity {
  readonly revocable = true;
  #revoked: ToolhostError | undefined;
  readonly #watchers = new Set<{ readonly onRevoke: (reason: ToolhostError) => void }>();

  get revoked(): ToolhostError | undefined {
    return this.#revoked;
  }

  /** watching is how many calls watch this credential now (for tests: ended calls leave none). */
  get watching(): number {
    return this.#watchers.size;
  }

  watch(onRevoke: (reason: ToolhostError) => void): () => void {
    if (this.#revoked !== undefined) {
      onRevoke(this.#revoked);
      return noop;
    }
    const watcher = { onRevoke };
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  /** revoke takes the credential out of force, once, and tells every call watching it. */
  revoke(reason: ToolhostError): void {
    if (this.#revoked !== undefined) return;
    this.#revoked = reason;
    const watchers = [...this.#watchers];
    this.#watchers.clear();
    for (const watcher of watchers) watcher.onRevoke(reason);
  }
}

/** alwaysValid is the Validity of a principal nothing can revoke (no authentication at all). */
export const alwaysValid: Validity = Object.freeze({ revocable: false, revoked: undefined, watch: () => noop });

function noop(): void {}
