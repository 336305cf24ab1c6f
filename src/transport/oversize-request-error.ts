import { ToolhostError } from "../errors/toolhost-error.js";

/**
 * oversizeRequestError is the error a request message over the receive limit gets: TOO_LARGE,
 * with the sizes, and what to do instead.
 */
export function oversizeRequestError(method: string, size: number | undefined, limit: number): ToolhostError {
  const what = size === undefined ? "The request message is" : `The request message is ${size} bytes,`;
  return new ToolhostError(
    "TOO_LARGE",
    `${what} over this server's limit of ${limit} bytes per message (limits.max_receive_message_bytes) for ${method}; ${
      method.endsWith("/UploadFile")
        ? "send the data in smaller chunks"
        : "send large content with UploadFile, in chunks"
    }.`,
    { ...(size === undefined ? {} : { size: String(size) }), limit: String(limit) },
  );
}
