import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, it } from "node:test";

describe("docs/tools.md", () => {
  it("shows examples/python/agent_loop.py whole, as CI runs it", async () => {
    const doc = await readFile("docs/tools.md", "utf8");
    const example = await readFile("examples/python/agent_loop.py", "utf8");
    const block = /## A backend loop, complete \(Python\)[\s\S]*?```python\n([\s\S]*?)```/.exec(doc)?.[1];
    assert.equal(block, example);
  });
});
