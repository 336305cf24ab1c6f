/** ImageMimeType is an image format MCP clients show a model: PNG, JPEG, GIF or WebP. */
export type ImageMimeType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** imageSignatureBytes is how many leading bytes imageMimeTypeOf needs to decide. */
export const imageSignatureBytes = 12;

/**
 * imageMimeTypeOf is the image format of content by its magic bytes, or undefined for anything
 * else. Hand-written, as detect-binary's table: the file-type package is not a dependency, and
 * four signatures (WebP's is "RIFF", a size, "WEBP") need no library.
 */
export function imageMimeTypeOf(head: Uint8Array): ImageMimeType | undefined {
  const starts = (bytes: readonly number[], at = 0) => bytes.every((b, i) => head[at + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg";
  if (starts([0x47, 0x49, 0x46, 0x38]) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61)
    return "image/gif";
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  return undefined;
}
