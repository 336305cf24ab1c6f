// Revocation by construction (issue 27 #9): every method of every service, whatever its kind,
// ends with UNAUTHENTICATED when its caller's credential is revoked while it runs, because the
// one admission point (guardService) links it to its credential. The services' methods are
// enumerated from their descriptors, so a new method is covered without a new test.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { create, type DescMethod, type DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, createHandlerContext, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { SkillCatalog } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { Tools } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import { Authenticator } from "../../src/auth/authenticator.js";
import { CredentialValidity } from "../../src/auth/credential-validity.js";
import { Quotas } from "../../src/auth/quotas.js";
import { ScopeSandboxes } from "../../src/auth/scope-sandboxes.js";
import { TokenStore } from "../../src/auth/token-store.js";
import { methodTiers } from "../../src/service/method-tiers.js";
import { guardService } from "../../src/transport/guard-service.js";
import type { CallGate } from "../../src/transport/authenticate-call.js";
import { waitFor } from "../support/wait-for.js";

const sha = (token: string) => createHash("sha256").update(token).digest("hex");
const entry = (id: string) =>
  `  - { id: ${id}, sha256: ${sha(`th_${id}`)}, expires: never, scope: { roots: all, tier: delete, namespaces: all, quota: { calls: 1000, streams: 1000 } } }\n`;

function aborted(signal: AbortSignal): Promise<void> {
  return signal.aborted
    ? Promise.resolve()
    : new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/**
 * wellBehaved is a ServiceImpl whose every method runs until its signal aborts, as the real
 * handlers do: a unary one waits on it, a client stream reads a client that never sends, a
 * server stream sends one message and waits.
 */
function wellBehaved(service: DescService): Record<string, unknown> {
  const impl: Record<string, unknown> = {};
  for (const method of service.methods) {
    if (method.methodKind === "unary") {
      impl[method.localName] = async (_req: unknown, ctx: HandlerContext) => {
        await aborted(ctx.signal);
        throw ctx.signal.reason;
      };
    } else if (method.methodKind === "client_streaming") {
      impl[method.localName] = async (requests: AsyncIterable<unknown>) => {
        for await (const _ of requests) {
          // never: the client sends nothing
        }
        throw new Error("the request stream ended");
      };
    } else {
      impl[method.localName] = async function* (_req: unknown, ctx: HandlerContext) {
        yield create(method.output);
        await aborted(ctx.signal);
      };
    }
  }
  return impl;
}

/** call runs one guarded method with a bearer token; it settles when the call ends. */
function call(
  impl: Record<string, unknown>,
  service: DescService,
  method: DescMethod,
  token: string,
): { context: ReturnType<typeof createHandlerContext>; done: Promise<unknown>; settled: () => boolean } {
  const context = createHandlerContext({
    service,
    method,
    protocolName: "grpc",
    requestMethod: "POST",
    url: `/${service.typeName}/${method.name}`,
    requestHeader: { authorization: `Bearer ${token}` },
  });
  const fn = impl[method.localName] as (input: unknown, ctx: HandlerContext) => unknown;
  let settled = false;
  let done: Promise<unknown>;
  if (method.methodKind === "unary") {
    done = Promise.resolve(fn(create(method.input), context));
  } else if (method.methodKind === "client_streaming") {
    // A client that sends nothing; its stream fails when the call is cancelled, as a transport's does.
    const silent: AsyncIterable<unknown> = {
      [Symbol.asyncIterator]: () => ({
        next: () => aborted(context.signal).then(() => Promise.reject(context.signal.reason)),
      }),
    };
    done = Promise.resolve(fn(silent, context));
  } else {
    done = (async () => {
      const received: unknown[] = [];
      for await (const message of fn(create(method.input), context) as AsyncIterable<unknown>) received.push(message);
      return received;
    })();
  }
  done = done.finally(() => (settled = true));
  done.catch(() => undefined);
  return { context, done, settled: () => settled };
}

async function unauthenticated(done: Promise<unknown>, where: string): Promise<void> {
  await assert.rejects(done, (err: unknown) => {
    assert.ok(err instanceof ConnectError, `${where}: ${String(err)}`);
    assert.equal(err.code, Code.Unauthenticated, `${where}: ${err.message}`);
    assert.equal(err.findDetails(ErrorInfoSchema)[0]?.reason, "UNAUTHENTICATED", where);
    assert.match(err.rawMessage, /was revoked while this call was open/, where);
    return true;
  });
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("guardService ends every call of a revoked credential", () => {
  let dir: string;
  let file: string;
  let store: TokenStore;
  let gate: CallGate;
  const services = [FileTools, SkillCatalog, Tools] as const;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "toolhost-revocation-guard-"));
    file = path.join(dir, "tokens.yaml");
    await writeFile(file, `tokens:\n${entry("gone")}${entry("kept")}`);
    store = TokenStore.open(file, [dir], {}, 60_000);
    gate = {
      authenticator: new Authenticator({ tokens: store, certificates: false }),
      quotas: new Quotas(),
      sandboxes: new ScopeSandboxes({ roots: [{ path: dir, readOnly: false }], readOnly: false }),
      methodTier: methodTiers(),
    };
  });
  after(() => store.close());

  it("on every method of FileTools, SkillCatalog and Tools, and only the revoked credential's", async () => {
    const calls: { where: string; gone: ReturnType<typeof call>; kept: ReturnType<typeof call> }[] = [];
    for (const service of services) {
      const guarded = guardService(
        service,
        wellBehaved(service) as unknown as ServiceImpl<typeof service>,
        gate,
      ) as unknown as Record<string, unknown>;
      for (const method of service.methods) {
        calls.push({
          where: `${service.typeName}/${method.name} (${method.methodKind})`,
          gone: call(guarded, service, method, "th_gone"),
          kept: call(guarded, service, method, "th_kept"),
        });
      }
    }
    assert.ok(calls.length >= 30, `only ${calls.length} methods`);
    const gone = store.credentials.tokens.find((t) => t.principal.id === "gone")!.principal
      .validity as CredentialValidity;
    const kept = store.credentials.tokens.find((t) => t.principal.id === "kept")!.principal
      .validity as CredentialValidity;
    // Admission builds the scope's sandbox first (a few file system calls): wait until every
    // handler runs, that is, watches its credential.
    await waitFor("every handler to watch its credential", () => gone.watching + kept.watching >= 2 * calls.length);
    assert.equal(gone.watching, calls.length, "each call of 'gone' watches its credential");
    assert.ok(
      calls.every((c) => !c.gone.settled() && !c.kept.settled()),
      "a call ended before the revocation",
    );
    await writeFile(`${file}.tmp`, `tokens:\n${entry("kept")}`);
    await rename(`${file}.tmp`, file);
    await store.reload();
    for (const c of calls) await unauthenticated(c.gone.done, c.where);
    await turns(5);
    assert.deepEqual(
      calls.filter((c) => c.kept.settled()).map((c) => c.where),
      [],
      "a call of the credential still in force ended",
    );
    assert.equal(gone.watching, 0, "a revoked credential keeps no calls");
    for (const c of calls) c.kept.context.abort();
    await Promise.allSettled(calls.map((c) => c.kept.done));
    assert.equal(kept.watching, 0, "an ended call stops watching");
  });

  it("still answers a call that completed: its effect is done, and the client must know", async () => {
    await writeFile(`${file}.tmp`, `tokens:\n${entry("late")}`);
    await rename(`${file}.tmp`, file);
    await store.reload();
    let finish!: () => void;
    const impl = {
      writeFile: () =>
        new Promise(
          (resolve) => (finish = () => resolve(create(FileTools.method.writeFile.output, { sha256: "done" }))),
        ),
    };
    const guarded = guardService(
      FileTools,
      impl as unknown as ServiceImpl<typeof FileTools>,
      gate,
    ) as unknown as Record<string, unknown>;
    const running = call(guarded, FileTools, FileTools.method.writeFile, "th_late");
    await turns(3);
    await writeFile(`${file}.tmp`, "tokens: []\n");
    await rename(`${file}.tmp`, file);
    await store.reload();
    finish();
    assert.equal(((await running.done) as { sha256: string }).sha256, "done");
  });
});
