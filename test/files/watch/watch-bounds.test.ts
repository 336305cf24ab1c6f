import { describe, it } from "node:test";
import { watchFiles } from "../../../src/files/watch/watch-files.js";
import { defaultLimits } from "../../../src/config/config.js";
import { WatchHub } from "../../../src/files/watch/watch-hub.js";
import { expectToolhostError } from "../../sandbox/sandbox-fixture.js";
import { watchRoot } from "./watch-fixture.js";

describe("watchFiles: refused requests", () => {
  it("refuses too-complex globs, a missing path and a path outside the roots before watching", async () => {
    const { sandbox } = await watchRoot({ "a.txt": "" });
    const first = (request: Parameters<typeof watchFiles>[1]) => async () => {
      const stream = watchFiles(sandbox, request, new WatchHub(defaultLimits), "test");
      try {
        await stream.next();
      } finally {
        await stream.return(undefined);
      }
    };
    await expectToolhostError(first({ path: "", include: ["a".repeat(300)] }), "PATTERN_TOO_COMPLEX", [
      "include",
      "256",
    ]);
    await expectToolhostError(
      first({ path: "", exclude: Array.from({ length: 65 }, (_, i) => `*.${i}`) }),
      "PATTERN_TOO_COMPLEX",
      ["65 globs"],
    );
    await expectToolhostError(first({ path: "missing" }), "NOT_FOUND", ["missing"]);
    await expectToolhostError(first({ path: "../x" }), "PATH_TRAVERSAL", ["../x"]);
  });
});
