import type { ServiceImpl } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { FileType } from "../../../gen/ts/toolhost/files/v1/stat_pb.js";
import { WatchEventType, type WatchFilesResponseSchema } from "../../../gen/ts/toolhost/files/v1/watch_pb.js";
import { watchFiles, type WatchEventValue } from "../../files/watch/watch-files.js";
import type { WatchSlots } from "../../files/watch/watch-slots.js";
import type { FileToolsDeps } from "./file-tools-deps.js";

/**
 * watchFilesHandler serves FileTools.WatchFiles: one of the server's watch slots for the life of
 * the stream, the request mapped to watchFiles, each event to a WatchFilesResponse.
 */
export function watchFilesHandler(deps: FileToolsDeps, slots: WatchSlots): ServiceImpl<typeof FileTools>["watchFiles"] {
  return async function* (request, context) {
    const release = slots.acquire();
    try {
      const events = watchFiles(deps.sandboxFor(context), request, deps.limits, context.signal);
      for await (const event of events) yield watchResponseOf(event);
    } finally {
      release();
    }
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

const fileTypes = { file: FileType.FILE, directory: FileType.DIRECTORY, symlink: FileType.SYMLINK, other: FileType.OTHER, unknown: FileType.UNSPECIFIED } as const;

function watchResponseOf(event: WatchEventValue): MessageInitShape<typeof WatchFilesResponseSchema> {
  if (!("path" in event)) return { type: types[event.type] };
  return {
    type: types[event.type],
    path: event.path,
    oldPath: event.type === "renamed" ? event.oldPath : "",
    fileType: fileTypes[event.kind],
    size: BigInt(event.size),
  };
}
