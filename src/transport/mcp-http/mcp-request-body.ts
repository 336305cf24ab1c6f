import type { IncomingMessage, ServerResponse } from "node:http";
import { readWholeBody } from "../policy/request-body.js";
import { answerJsonRpcError } from "./mcp-http-answer.js";

/**
 * readMcpMessage reads one POST /mcp body (at most `limit` bytes) and parses it as one JSON-RPC
 * message, which it returns; or answers the request itself and returns undefined: 413 for a body
 * over the limit, 400 for one that is not JSON (-32700) or is a batch (-32600). MCP has no
 * batches since its 2025-06-18 revision, and the SDK would hold every result of one (up to 100
 * messages) and answer them as one JSON text: a batch of large reads would pin their bytes until
 * the whole answer, which may not fit a string at all, is built.
 */
export async function readMcpMessage(req: IncomingMessage, res: ServerResponse, limit: number): Promise<unknown> {
  const body = await readWholeBody(req, limit, "bare");
  if (body.kind === "gone") return undefined;
  if (body.kind === "oversize") {
    answerJsonRpcError(
      res,
      413,
      `The request body is larger than this listener takes (${limit} bytes: limits.max_receive_message_bytes and 64 KiB for the JSON-RPC envelope); send less per call, e.g. page a write or read.`,
      { close: true },
    );
    return undefined;
  }
  let message: unknown;
  try {
    message = JSON.parse(Buffer.concat(body.chunks).toString("utf8"));
  } catch {
    answerJsonRpcError(res, 400, "Parse error: the request body is not JSON; send one JSON-RPC message.", {
      close: false,
      code: -32700,
    });
    return undefined;
  }
  if (Array.isArray(message)) {
    answerJsonRpcError(
      res,
      400,
      "Invalid Request: JSON-RPC batches are not part of MCP (since 2025-06-18); send each message in a POST of its own.",
      { close: false, code: -32600 },
    );
    return undefined;
  }
  return message;
}
