import { request } from "node:https";

/** HttpsFetchOptions are the TLS settings of httpsFetch: the CA to trust, a client pair to present. */
export interface HttpsFetchOptions {
  readonly ca: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

/**
 * httpsFetch is a fetch over node:https that trusts `ca` (and presents a client certificate when
 * given), for clients such as the MCP SDK's StreamableHTTPClientTransport that take a fetch: Node's
 * own fetch cannot be told a CA without undici's Agent. It reads the whole response before
 * answering, which suits the JSON answers of a stateless MCP server.
 */
export function httpsFetch(options: HttpsFetchOptions): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init = {}) => {
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const body = init.body === undefined || init.body === null ? undefined : String(init.body);
    return new Promise<Response>((resolve, reject) => {
      const req = request(
        new URL(String(url)),
        { method: init.method ?? "GET", headers, ca: options.ca, cert: options.cert, key: options.key },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", reject);
          res.on("end", () => {
            const answer = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              if (value !== undefined) answer.set(name, Array.isArray(value) ? value.join(", ") : value);
            }
            const status = res.statusCode ?? 0;
            const empty = status === 202 || status === 204 || status === 304;
            resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers: answer }));
          });
        },
      );
      req.on("error", reject);
      init.signal?.addEventListener("abort", () => req.destroy(new Error("aborted")), { once: true });
      req.end(body);
    });
  };
}
