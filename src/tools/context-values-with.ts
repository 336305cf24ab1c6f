import type { ContextKey, ContextValues } from "@connectrpc/connect";

/**
 * ContextValuesWith is a call's ContextValues with one more value, seen only through this view:
 * a tool call gives its handler a value (the read tool's page) without setting it on the
 * caller's context. Other keys read and write through to the caller's values.
 */
export class ContextValuesWith<V> implements ContextValues {
  constructor(
    private readonly under: ContextValues,
    private readonly key: ContextKey<V>,
    private readonly value: V,
  ) {}

  get<T>(key: ContextKey<T>): T {
    return key.id === this.key.id ? (this.value as unknown as T) : this.under.get(key);
  }

  set<T>(key: ContextKey<T>, value: T): this {
    this.under.set(key, value);
    return this;
  }

  delete(key: ContextKey<unknown>): this {
    this.under.delete(key);
    return this;
  }
}
