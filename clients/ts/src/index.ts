// @toolhost/client: the generated toolhost services and messages plus small helpers.
// Every generated module is also importable as "@toolhost/client/gen/<path>_pb.js".
export { createClient, type ClientOptions, type TlsOptions, type ToolhostClient } from "./create-client.js";
export { readBytes, readText, readTo, ReadVerifyError, type ReadOptions, type ReadResult } from "./read-file.js";
export { uploadPath, uploadStream, UploadVerifyError, type UploadOptions } from "./upload.js";
export { errorDomain, errorMetadata, hasReason, reason, reasonName } from "./error-reason.js";
export { toSafeNumber, toUint64, type Uint64Input } from "./uint64.js";
export { createLeanClient } from "./transport/lean-client.js";
export { createHttp2GrpcTransport, type Http2GrpcTransportOptions } from "./transport/http2-grpc-transport.js";
export { defaultReadMaxBytes } from "./transport/read-max-bytes.js";
export {
  WideWindowSessionManager,
  defaultConnectTimeoutMs,
  defaultConnectionWindow,
  defaultKeepalive,
  defaultStreamWindow,
  type KeepaliveOptions,
  type SessionOptions,
} from "./transport/window-session-manager.js";
export * from "../gen/toolhost/files/v1/file_tools_pb.js";
export * from "../gen/toolhost/files/v1/read_pb.js";
export * from "../gen/toolhost/files/v1/read_files_pb.js";
export * from "../gen/toolhost/files/v1/write_pb.js";
export * from "../gen/toolhost/files/v1/edit_pb.js";
export * from "../gen/toolhost/files/v1/stat_pb.js";
export * from "../gen/toolhost/files/v1/roots_pb.js";
export * from "../gen/toolhost/files/v1/tree_pb.js";
export * from "../gen/toolhost/files/v1/search_pb.js";
export * from "../gen/toolhost/files/v1/watch_pb.js";
export * from "../gen/toolhost/files/v1/history_pb.js";
export * from "../gen/toolhost/files/v1/patch_pb.js";
export * from "../gen/toolhost/skills/v1/skill_catalog_pb.js";
export * from "../gen/toolhost/skills/v1/skill_pb.js";
export * from "../gen/toolhost/tools/v1/tool_descriptor_pb.js";
// toolhost.tools.v1 shares two message names with toolhost.files.v1 (FileTools' ListTools):
// those two go by a Tools prefix here, and by their own names from the module's subpath.
export {
  Tools,
  Dialect,
  DialectSchema,
  CallToolRequestSchema,
  CallToolResponseSchema,
  file_toolhost_tools_v1_tools,
  ListToolsRequestSchema as ToolsListToolsRequestSchema,
  ListToolsResponseSchema as ToolsListToolsResponseSchema,
  type CallToolRequest,
  type CallToolResponse,
  type ListToolsRequest as ToolsListToolsRequest,
  type ListToolsResponse as ToolsListToolsResponse,
} from "../gen/toolhost/tools/v1/tools_pb.js";
export * from "../gen/toolhost/errors/v1/error_reason_pb.js";
export { ErrorInfoSchema, type ErrorInfo } from "../gen/google/rpc/error_details_pb.js";
