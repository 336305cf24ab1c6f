import type { JsonObject } from "@bufbuild/protobuf";

/**
 * ToolCallResult is what one tool call gives back: the text a model reads and the structured
 * result (the RPC's response as proto JSON, or the error) a backend can use.
 */
export interface ToolCallResult {
  readonly content: string;
  readonly structured: JsonObject;
  readonly isError: boolean;
  /** The ErrorInfo reason of a refused call; "" otherwise. */
  readonly reason: string;
  /** Whether `content` was cut at the cap (it then ends with a notice). */
  readonly truncated: boolean;
}
