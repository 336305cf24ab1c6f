import { Worker } from "node:worker_threads";

/**
 * startWorker starts one of this folder's worker modules (`name` without extension, a URL
 * relative to this file): the compiled .js, or, when running from TypeScript sources under tsx
 * (tests), the .ts file through tsx's loader, which Node 20 does not install in worker threads by
 * itself. `trackUnmanagedFds: false` is for a worker whose descriptors are closed by another
 * thread: Node would otherwise warn when it reuses a number and close them all when it exits.
 */
export function startWorker(name: string, workerData: unknown, options: { trackUnmanagedFds?: boolean } = {}): Worker {
  const fromSource = import.meta.url.endsWith(".ts");
  const url = new URL(`${name}${fromSource ? ".ts" : ".js"}`, import.meta.url);
  if (!fromSource) return new Worker(url, { workerData, ...options });
  const tsx = import.meta.resolve("tsx/esm/api");
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(boot, { eval: true, workerData, ...options });
}
