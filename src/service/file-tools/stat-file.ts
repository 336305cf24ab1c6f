import type { ServiceImpl } from "@connectrpc/connect";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { FileType } from "../../../gen/ts/toolhost/files/v1/stat_pb.js";
import type { FileKind } from "../../files/file-kind.js";
import { statPath } from "../../files/stat-path.js";
import type { FileToolsDeps } from "./file-tools-deps.js";

/** statFileHandler serves FileTools.StatFile. */
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
    return {
      path: stat.path,
      type: fileTypeOf(stat.type),
      size: BigInt(stat.size),
      mode: stat.mode,
      modified: stat.modified === undefined ? undefined : timestampFromDate(stat.modified),
      sha256: stat.sha256,
      binary: stat.binary,
      symlink: stat.symlink,
      hardLinked: stat.hardLinked,
    };
  };
}

/** fileTypeOf maps a domain FileKind to the proto FileType (also used by ListDirectory). */
export function fileTypeOf(kind: FileKind): FileType {
  switch (kind) {
    case "file":
      return FileType.FILE;
    case "directory":
      return FileType.DIRECTORY;
    case "symlink":
      return FileType.SYMLINK;
    case "other":
      return FileType.OTHER;
  }
}
