import type { ServiceImpl } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { FileType } from "../../../gen/ts/toolhost/files/v1/stat_pb.js";
import { WatchEventType, type WatchFilesResponseSchema } from "../../../gen/ts/toolhost/files/v1/watch_pb.js";
import { watchFiles, type WatchEventValue } from "../../files/watch/watch-files.js";
import type { WatchHub } from "../../files/watch/watch-hub.js";
import { principalOf } from "../caller.js";
import type { FileToolsDeps } from "./file-tools-deps.js";

/**
 * watchFilesHandler serves FileTools.WatchFiles: the request mapped to watchFiles as the calling
 * principal's stream (its share of the server's watch bounds and turns), each event to a
 * WatchFilesResponse. The call's abort signal (a cancel, a deadline, a revoked token) ends it.
 */
export function watchFilesHandler(deps: FileToolsDeps, hub: WatchHub): ServiceImpl<typeof FileTools>["watchFiles"] {
  return async function* (request, context) {
    const events = watchFiles(deps.sandboxFor(context), request, hub, principalOf(context).id, context.signal);
    for await (const event of events) yield watchResponseOf(event);
  };
}

const types: Record<WatchEventValue["type"], WatchEventType> = {
  created: WatchEventType.CREATED,
  modified: WatchEventType.MODIFIED,
  deleted: WatchEventType.DELETED,
  renamed: WatchEventType.RENAMED,
  "snapshot-done": WatchEventType.SNAPSHOT_DONE,
  ready: WatchEventType.READY,
  overflow: WatchEventType.OVERFLOW,
};

const fileTypes = {
  file: FileType.FILE,
  directory: FileType.DIRECTORY,
  symlink: FileType.SYMLINK,
  other: FileType.OTHER,
  unknown: FileType.UNSPECIFIED,
} as const;

function watchResponseOf(event: WatchEventValue): MessageInitShape<typeof WatchFilesResponseSchema> {
  if (!("path" in event)) return { type: types[event.type] };
  return {
    type: types[event.type],
    path: event.path,
    oldPath: event.type === "renamed" ? event.oldPath : "",
    fileType: fileTypes[event.kind],
    size: BigInt(event.size),
    hardLinked: event.hardLinked,
  };
}
