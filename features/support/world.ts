import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { After, Before, setDefaultTimeout, setWorldConstructor, World, type IWorldOptions } from "@cucumber/cucumber";
import { ConnectError, type Client } from "@connectrpc/connect";
import type { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import type { SkillCatalog } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { startTestServer, type TestServer, type TestServerOptions } from "../../test/support/test-server.js";

setDefaultTimeout(30_000);

/**
 * ToolhostWorld is the state of one scenario: a fresh temporary directory, a real toolhost
 * serving it over gRPC on an ephemeral port, generated clients, and the outcome of the last call.
 */
export class ToolhostWorld extends World {
  /** The scenario's own temporary directory, the server's first root. */
  root = "";
  server: TestServer | undefined;
  /** What the last call returned (a response, or what a stream collected into). */
  result: unknown;
  /** What the last call failed with. */
  error: ConnectError | undefined;

  constructor(options: IWorldOptions) {
    super(options);
  }

  get fileTools(): Client<typeof FileTools> {
    return this.requireServer().fileTools;
  }

  get skillCatalog(): Client<typeof SkillCatalog> {
    return this.requireServer().skillCatalog;
  }

  /** restartServer replaces the scenario's server, e.g. to serve a skills folder it built. */
  async restartServer(options: TestServerOptions = {}): Promise<void> {
    await this.server?.close();
    this.server = await startTestServer({ roots: [{ path: this.root }], ...options });
  }

  /** call runs one client call, keeping its result or its error for the Then steps. */
  async call<T>(fn: () => Promise<T>): Promise<T | undefined> {
    try {
      const result = await fn();
      this.result = result;
      this.error = undefined;
      return result;
    } catch (err) {
      this.result = undefined;
      this.error = ConnectError.from(err);
      return undefined;
    }
  }

  private requireServer(): TestServer {
    if (this.server === undefined) {
      throw new Error("no server is running in this scenario");
    }
    return this.server;
  }
}

setWorldConstructor(ToolhostWorld);

Before(async function (this: ToolhostWorld) {
  this.root = await mkdtemp(join(tmpdir(), "toolhost-feature-"));
  this.server = await startTestServer({ roots: [{ path: this.root }] });
});

After(async function (this: ToolhostWorld) {
  await this.server?.close();
  await rm(this.root, { recursive: true, force: true });
});
