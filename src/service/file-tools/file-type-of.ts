import { FileType } from "../../../gen/ts/toolhost/files/v1/stat_pb.js";
import type { FileKind } from "../../files/file-kind.js";

/** fileTypeOf maps a domain FileKind to the proto FileType (StatFile, ListDirectory, copies and moves). */
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
