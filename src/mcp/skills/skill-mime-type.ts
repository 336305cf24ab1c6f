import { extname } from "node:path";

/** mimeTypes maps the file extensions common in skill folders to their media types. */
const mimeTypes: Readonly<Record<string, string>> = {
  ".md": "text/markdown",
  ".markdown": "text/markdown",
  ".txt": "text/plain",
  ".py": "text/x-python",
  ".sh": "application/x-sh",
  ".bash": "application/x-sh",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".ts": "text/x-typescript",
  ".json": "application/json",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
  ".toml": "application/toml",
  ".xml": "application/xml",
  ".html": "text/html",
  ".htm": "text/html",
  ".css": "text/css",
  ".csv": "text/csv",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
};

/** knownMimeType is a skill file's media type by its extension, undefined for an unknown one. */
export function knownMimeType(name: string): string | undefined {
  return mimeTypes[extname(name).toLowerCase()];
}

/**
 * mimeTypeOf is a skill file's media type by its extension; a file of another extension is
 * text/plain when its bytes are text, else application/octet-stream.
 */
export function mimeTypeOf(name: string, isText: boolean): string {
  return knownMimeType(name) ?? (isText ? "text/plain" : "application/octet-stream");
}

/**
 * textOf is the bytes as text when they are valid UTF-8 without NUL or another C0 control but
 * tab, line feed, form feed and carriage return, else undefined (a blob). JSON escapes each such
 * control as six bytes ("\u0001"), so a file of them answered as text would be six times its
 * size on the wire, where a base64 blob is four thirds.
 */
export function textOf(bytes: Uint8Array): string | undefined {
  if (bytes.some(isEscapedControl)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** isEscapedControl tells a C0 control byte other than \t, \n, \f and \r. */
function isEscapedControl(byte: number): boolean {
  return byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d;
}
