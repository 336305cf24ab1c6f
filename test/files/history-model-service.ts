import { lstat, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, type DescMessage, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { ConnectError, createHandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { UploadFileRequestSchema } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { defaultLimits } from "../../src/config/config.js";
import { FileHistory } from "../../src/files/history/file-history.js";
import { tempFilePrefix } from "../../src/files/write/temp-files.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { createFileToolsService } from "../../src/service/file-tools/file-tools-service.js";

/** ModelService is the real FileTools service over a fresh root, with a real FileHistory beside it. */
export interface ModelService {
  readonly root: string;
  readonly history: FileHistory;
  /** unary calls a unary method of the ServiceImpl as a transport would: a request message in, a response message out. */
  unary<K extends UnaryName>(
    name: K,
    init: MessageInitShape<(typeof FileTools.method)[K]["input"]>,
  ): Promise<MessageShape<(typeof FileTools.method)[K]["output"]>>;
  /** upload calls UploadFile with a header and the content in one data message. */
  upload(path: string, content: Uint8Array): Promise<void>;
  /** tree lists every entry under the root: relative path to its content ("" for a folder, marked by a trailing "/"). */
  tree(): Promise<Map<string, string>>;
  close(): Promise<void>;
}

type UnaryName = {
  [K in keyof typeof FileTools.method]: (typeof FileTools.method)[K]["methodKind"] extends "unary" ? K : never;
}[keyof typeof FileTools.method];

/**
 * startModelService builds the FileTools ServiceImpl as the server does (createFileToolsService,
 * with error mapping) on a sandbox of one fresh root and a FileHistory in a fresh folder, whose
 * max_file_bytes is `maxFileBytes` (or in the folders given; close removes them either way).
 */
export async function startModelService(
  maxFileBytes: number,
  options: { root?: string; historyDir?: string } = {},
): Promise<ModelService> {
  const root = options.root ?? (await mkdtemp(join(tmpdir(), "toolhost-model-root-")));
  const historyDir = options.historyDir ?? (await mkdtemp(join(tmpdir(), "toolhost-model-history-")));
  const sandbox = await createSandbox([{ path: root, readOnly: false }], { reservedNamePrefix: tempFilePrefix });
  const history = new FileHistory({
    dir: historyDir,
    maxBytes: 1024 ** 3,
    maxAgeMs: 3_600_000,
    maxFileBytes,
    maxEntriesPerFile: 1000,
  });
  const impl = createFileToolsService({ sandboxFor: () => sandbox, limits: defaultLimits, readOnly: false, history });
  const contextOf = (method: (typeof FileTools.method)[keyof typeof FileTools.method]) =>
    createHandlerContext({
      service: FileTools,
      method,
      protocolName: "history-model",
      requestMethod: "POST",
      url: `/${FileTools.typeName}/${method.name}`,
    });
  const anyImpl = impl as unknown as Record<string, (request: unknown, context: unknown) => Promise<unknown>>;
  return {
    root,
    history,
    async unary(name, init) {
      const method = FileTools.method[name];
      const request = create(method.input as DescMessage, init as never);
      const answer = await anyImpl[name]!(request, contextOf(method));
      return create(method.output as DescMessage, answer as never) as never;
    },
    async upload(path, content) {
      const method = FileTools.method.uploadFile;
      async function* requests() {
        yield create(UploadFileRequestSchema, { part: { case: "header", value: { path } } });
        yield create(UploadFileRequestSchema, { part: { case: "data", value: content } });
      }
      await (impl as ServiceImpl<typeof FileTools>).uploadFile(requests(), contextOf(method));
    },
    async tree() {
      const out = new Map<string, string>();
      const walk = async (dir: string, prefix: string): Promise<void> => {
        for (const name of (await readdir(dir)).sort()) {
          const full = join(dir, name);
          const rel = prefix === "" ? name : `${prefix}/${name}`;
          const stats = await lstat(full);
          if (stats.isDirectory()) {
            out.set(`${rel}/`, "");
            await walk(full, rel);
          } else {
            out.set(
              rel,
              stats.isFile() ? await readFile(full, "utf8") : `<${stats.isSymbolicLink() ? "link" : "other"}>`,
            );
          }
        }
      };
      await walk(root, "");
      return out;
    },
    async close() {
      await history.drain();
      await rm(root, { recursive: true, force: true });
      await rm(historyDir, { recursive: true, force: true });
    },
  };
}

/** reasonOf is the ErrorInfo reason of a failed call ("none" when it carries none). */
export function reasonOf(err: unknown): string {
  return ConnectError.from(err).findDetails(ErrorInfoSchema)[0]?.reason ?? "none";
}
