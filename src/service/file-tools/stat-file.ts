import type { ServiceImpl } from "@connectrpc/connect";
import { timestampFromDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import type { FileType } from "../../../gen/ts/toolhost/files/v1/stat_pb.js";
import { type PathStat, statPath } from "../../files/stat-path.js";
import { sendEncoded } from "../reply-encoded-ahead.js";
import { fileTypeOf } from "./file-type-of.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { encodeStatReply } from "./stat-reply-wire.js";

/**
 * statFileHandler serves FileTools.StatFile. The gRPC transport sends the answer as
 * encodeStatReply wrote it; its size and time become message values only when read (CallTool).
 */
export function statFileHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["statFile"] {
  return async (request, context) => {
    // Without a hash the work is a few system calls and one read of at most 8 KiB: nothing to
    // cancel, so the call's signal (made on first use, see call-context.ts) is not asked for.
    const signal = request.includeSha256 ? context.signal : undefined;
    const stat = await statPath(
      deps.sandboxFor(context),
      { path: request.path, includeSha256: request.includeSha256 },
      signal,
    );
    return sendEncoded(new StatFileReply(stat), encodeStatReply(stat));
  };
}

/** StatFileReply is a StatFileResponse init over a PathStat. */
export class StatFileReply {
  readonly path: string;
  readonly type: FileType;
  readonly mode: number;
  readonly sha256: string;
  readonly binary: boolean;
  readonly symlink: boolean;
  readonly hardLinked: boolean;
  readonly #stat: PathStat;

  constructor(stat: PathStat) {
    this.#stat = stat;
    this.path = stat.path;
    this.type = fileTypeOf(stat.type);
    this.mode = stat.mode;
    this.sha256 = stat.sha256;
    this.binary = stat.binary;
    this.symlink = stat.symlink;
    this.hardLinked = stat.hardLinked;
  }

  get size(): bigint {
    return BigInt(this.#stat.size);
  }

  get modified(): Timestamp | undefined {
    return this.#stat.modified === undefined ? undefined : timestampFromDate(this.#stat.modified);
  }
}
