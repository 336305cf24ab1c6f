import { FileType } from "../../../../gen/ts/toolhost/files/v1/stat_pb.js";

/** fileTypeOf maps a tree operation's entry kind to the wire FileType. */
export function fileTypeOf(kind: "file" | "symlink" | "directory" | "other"): FileType {
  switch (kind) {
    case "file":
      return FileType.FILE;
    case "symlink":
      return FileType.SYMLINK;
    case "directory":
      return FileType.DIRECTORY;
    default:
      return FileType.OTHER;
  }
}
