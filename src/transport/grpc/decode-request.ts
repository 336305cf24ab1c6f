import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { decodeMessage } from "../message-codec.js";

/** decodeRequest parses one request message, answering INVALID_ARGUMENT for bad bytes. */
export function decodeRequest<Desc extends DescMessage>(schema: Desc, bytes: Uint8Array): MessageShape<Desc> {
  try {
    return decodeMessage(schema, bytes);
  } catch (err) {
    throw new ConnectError(
      `The request is not a valid ${schema.typeName} message.`,
      Code.InvalidArgument,
      undefined,
      undefined,
      err,
    );
  }
}
