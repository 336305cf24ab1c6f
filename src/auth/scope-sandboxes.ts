import { realpath } from "node:fs/promises";
import path from "node:path";
import { isToolhostError, ToolhostError } from "../errors/toolhost-error.js";
import { createSandbox } from "../sandbox/create-sandbox.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { Scope } from "./scope.js";

/** ServerRoots are the server's own roots and flags, which every scope narrows. */
export interface ServerRoots {
  readonly roots: readonly { readonly path: string; readonly readOnly: boolean }[];
  readonly readOnly: boolean;
  readonly reservedNamePrefix?: string;
  /** sandbox.allow_hard_links: read files with more than one hard link. */
  readonly allowHardLinks?: boolean;
}

/** maxCachedScopes bounds the cache; past it the cache starts over (scopes are few in practice). */
const maxCachedScopes = 1024;

/**
 * ScopeSandboxes builds and caches one Sandbox per distinct scope: a sandbox over only the
 * scope's roots, in the scope's order, each read-only when the server, the root or the scope
 * says so. The sandbox never learns about tokens; it is simply created narrower. A path into a
 * root outside the scope is then outside all of this sandbox's roots, and is refused as any
 * traversal is, revealing nothing.
 */
export class ScopeSandboxes {
  readonly #cache = new Map<string, Promise<Sandbox>>();
  /** The sandboxes of #cache that are built, by the same keys, for callers that need no promise. */
  readonly #built = new Map<string, Sandbox>();

  constructor(private readonly server: ServerRoots) {}

  /** sandboxFor returns the (cached) sandbox of a scope. */
  sandboxFor(scope: Scope): Promise<Sandbox> {
    const key = keyOf(scope);
    let sandbox = this.#cache.get(key);
    if (sandbox === undefined) {
      if (this.#cache.size >= maxCachedScopes) {
        this.#cache.clear();
        this.#built.clear();
      }
      const building = this.#build(scope);
      sandbox = building;
      this.#cache.set(key, building);
      building.then(
        (built) => {
          if (this.#cache.get(key) === building) this.#built.set(key, built);
        },
        () => this.#cache.delete(key),
      );
    }
    return sandbox;
  }

  /**
   * builtSandboxFor is the scope's sandbox if it is already built, else undefined: the admission
   * of every call asks for it, and a settled promise still costs a turn of the microtask queue.
   */
  builtSandboxFor(scope: Scope): Sandbox | undefined {
    return this.#built.get(keyOf(scope));
  }

  async #build(scope: Scope): Promise<Sandbox> {
    const options = {
      readOnly: this.server.readOnly,
      reservedNamePrefix: this.server.reservedNamePrefix,
      allowHardLinks: this.server.allowHardLinks,
    };
    if (scope.roots === undefined) {
      return createSandbox(this.server.roots, options);
    }
    const serverFlags = new Map(this.server.roots.map((r) => [r.path, r.readOnly]));
    const granted = scope.roots.map((r) => ({
      path: r.path,
      readOnly: r.readOnly || serverFlags.get(r.path) === true,
    }));
    const roots = [...granted, ...(await this.#readOnlyRootsInside(granted))];
    const scopeReadOnly = new Set(
      scope.roots
        .filter((r) => r.readOnly && serverFlags.get(r.path) !== true && !this.server.readOnly)
        .map((r) => r.path),
    );
    const sandbox = await createSandbox(roots, options);
    return scopeReadOnly.size === 0 ? sandbox : withScopeRefusals(sandbox, scopeReadOnly, roots);
  }

  /**
   * #readOnlyRootsInside lists the server's read-only roots that lie inside a granted root (by
   * real path) without being granted themselves. The scope's sandbox has them too, read-only and
   * last (the first root, which relative paths resolve against, stays the scope's): otherwise a
   * scope of /work alone could write into /work/vendor, which the server serves read-only to
   * every caller, roots: all included. The caller could read them through the outer root anyway.
   */
  async #readOnlyRootsInside(granted: readonly { path: string }[]): Promise<{ path: string; readOnly: true }[]> {
    const candidates = this.server.roots.filter((r) => r.readOnly && !granted.some((g) => g.path === r.path));
    if (candidates.length === 0) return [];
    const realOf = (p: string) => realpath(p).catch(() => p);
    const grantedReal = await Promise.all(granted.map((g) => realOf(g.path)));
    const inside: { path: string; readOnly: true }[] = [];
    for (const root of candidates) {
      const real = await realOf(root.path);
      if (grantedReal.some((outer) => within(real, outer))) inside.push({ path: root.path, readOnly: true });
    }
    return inside;
  }
}

/** within tells whether real path `inner` is `outer` or lies below it. */
function within(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function keyOf(scope: Scope): string {
  return scope.roots === undefined ? "*" : JSON.stringify(scope.roots.map((r) => [r.path, r.readOnly]));
}

/**
 * withScopeRefusals reports a write refused only because the scope made its root read-only as
 * OUT_OF_SCOPE rather than READ_ONLY: the root is writable, the caller's scope is not.
 */
function withScopeRefusals(
  sandbox: Sandbox,
  scopeReadOnly: ReadonlySet<string>,
  configured: readonly { path: string }[],
): Sandbox {
  const realOfScopeReadOnly = new Set(
    sandbox.roots.filter((_r, i) => scopeReadOnly.has(configured[i]!.path)).map((r) => r.path),
  );
  const rethrow = async <T>(clientPath: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      if (isToolhostError(err, "READ_ONLY")) {
        const resolved = await sandbox.resolve(clientPath).catch(() => undefined);
        if (resolved !== undefined && realOfScopeReadOnly.has(resolved.root.path)) {
          throw new ToolhostError(
            "OUT_OF_SCOPE",
            `Cannot write "${clientPath}": your scope gives read-only access to this root; ask for a scope with write access to it.`,
            { path: clientPath, lacks: "root_write" },
          );
        }
      }
      throw err;
    }
  };
  return Object.freeze({
    ...sandbox,
    resolveForWrite: (clientPath: string) => rethrow(clientPath, () => sandbox.resolveForWrite(clientPath)),
    resolveEntryForWrite: (clientPath: string) => rethrow(clientPath, () => sandbox.resolveEntryForWrite(clientPath)),
  });
}
