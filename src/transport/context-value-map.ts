import type { ContextKey, ContextValues } from "@connectrpc/connect";

/**
 * ContextValueMap is Connect's ContextValues as a class: createContextValues returns an object
 * literal whose three methods are new functions on every call, which a unary call on grpc-js
 * paid for each time. Values are kept by their key's symbol, as Connect's are.
 */
export class ContextValueMap implements ContextValues {
  // A plain object: the same symbols are set in the same order on every call, so V8 keeps one
  // shape for them (no per-call Map).
  readonly #values: Record<symbol, unknown> = {};

  get<T>(key: ContextKey<T>): T {
    return key.id in this.#values ? (this.#values[key.id] as T) : key.defaultValue;
  }

  set<T>(key: ContextKey<T>, value: T): this {
    this.#values[key.id] = value;
    return this;
  }

  delete(key: ContextKey<unknown>): this {
    delete this.#values[key.id];
    return this;
  }
}
