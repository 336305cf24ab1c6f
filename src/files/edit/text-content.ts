import { ToolhostError } from "../../errors/toolhost-error.js";
import { detectBinary } from "../read/detect-binary.js";

/** DecodedText is a file's content as text, with its UTF-8 byte order mark set aside. */
export interface DecodedText {
  readonly text: string;
  readonly bom: boolean;
}

const bomChar = "\uFEFF";
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * decodeForEdit turns a file's bytes into text an edit can change and write back byte for byte.
 * It refuses what ReadFile's text mode calls binary (the same detector) and also invalid UTF-8,
 * which reading may show with replacement characters but an edit would write back corrupted.
 */
export function decodeForEdit(bytes: Uint8Array, clientPath: string): DecodedText {
  const verdict = detectBinary(bytes);
  let text: string | undefined;
  if (!verdict.binary) {
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      text = undefined;
    }
  }
  if (text === undefined) {
    const why = verdict.binary ? verdict.why : "it is not valid UTF-8";
    throw new ToolhostError(
      "BINARY_FILE",
      `Binary file detected: '${clientPath}' cannot be edited as text because ${why}; nothing was changed. Replace it whole with WriteFile or UploadFile instead.`,
      { path: clientPath },
    );
  }
  return text.startsWith(bomChar) ? { text: text.slice(1), bom: true } : { text, bom: false };
}

/** encodeAfterEdit turns edited text back into bytes, restoring the byte order mark it had. */
export function encodeAfterEdit(decoded: DecodedText): Buffer {
  return Buffer.from(decoded.bom ? bomChar + decoded.text : decoded.text, "utf8");
}
