import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { imageMimeTypeOf } from "../../src/files/read/image-mime-type.js";

const bytes = (...parts: (number[] | string)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : Buffer.from(p))));

describe("imageMimeTypeOf", () => {
  it("knows PNG, JPEG, GIF and WebP by their magic bytes", async () => {
    const png = await readFile(path.resolve(import.meta.dirname, "../fixtures/images/pixel.png"));
    assert.equal(imageMimeTypeOf(png), "image/png");
    assert.equal(imageMimeTypeOf(bytes([0xff, 0xd8, 0xff, 0xe0], "\0\x10JFIF")), "image/jpeg");
    assert.equal(imageMimeTypeOf(bytes("GIF87a", [1, 0, 1, 0])), "image/gif");
    assert.equal(imageMimeTypeOf(bytes("GIF89a", [1, 0, 1, 0])), "image/gif");
    assert.equal(imageMimeTypeOf(bytes("RIFF", [0x24, 0, 0, 0], "WEBPVP8 ")), "image/webp");
  });

  it("answers undefined for anything else, a short head and look-alikes included", () => {
    assert.equal(imageMimeTypeOf(bytes("hello world\n")), undefined);
    assert.equal(imageMimeTypeOf(bytes([0x89, 0x50, 0x4e, 0x47])), undefined, "a cut PNG signature");
    assert.equal(imageMimeTypeOf(bytes("GIF88a")), undefined);
    assert.equal(imageMimeTypeOf(bytes("RIFF", [0x24, 0, 0, 0], "WAVEfmt ")), undefined, "a WAV file");
    assert.equal(imageMimeTypeOf(new Uint8Array()), undefined);
  });
});
