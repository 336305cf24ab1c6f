import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { IndexedList } from "../../src/transport/indexed-list.js";

interface Item {
  readonly id: number;
  listIndex: number;
}

/** members lists what `list` holds, by id, checking that each member knows its own index. */
function members(list: IndexedList<Item>): number[] {
  const ids: number[] = [];
  for (let i = 0; i < list.length; i++) {
    const item = list.at(i);
    assert.equal(item.listIndex, i, `item ${item.id} at ${i} thinks it is at ${item.listIndex}`);
    ids.push(item.id);
  }
  return ids.sort((a, b) => a - b);
}

describe("IndexedList", () => {
  it("adds once, removes by moving the last member into the gap, and ignores non-members", () => {
    const list = new IndexedList<Item>();
    const [a, b, c] = [0, 1, 2].map((id) => ({ id, listIndex: -1 }));
    list.add(a!);
    list.add(b!);
    list.add(c!);
    list.add(a!); // already a member
    assert.deepEqual(members(list), [0, 1, 2]);
    list.remove(a!);
    assert.equal(a!.listIndex, -1);
    assert.equal(list.at(0), c, "the last member took the removed one's place");
    list.remove(a!); // no longer a member: nothing happens
    assert.deepEqual(members(list), [1, 2]);
    const all = list.removeAll();
    assert.deepEqual(all.map((x) => x.id).sort(), [1, 2]);
    assert.ok(all.every((x) => x.listIndex === -1));
    assert.equal(list.length, 0);
  });

  it("stays equal to a Set under 20,000 random adds and removes", () => {
    const list = new IndexedList<Item>();
    const model = new Set<number>();
    const items = Array.from({ length: 64 }, (_, id) => ({ id, listIndex: -1 }));
    let seed = 12345;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let step = 0; step < 20_000; step++) {
      const item = items[random(items.length)]!;
      if (random(2) === 0) {
        list.add(item);
        model.add(item.id);
      } else {
        list.remove(item);
        model.delete(item.id);
      }
      if (step % 97 === 0) {
        assert.deepEqual(
          members(list),
          [...model].sort((a, b) => a - b),
          `step ${step}`,
        );
      }
    }
    assert.deepEqual(
      members(list),
      [...model].sort((a, b) => a - b),
    );
    for (const item of items) {
      assert.equal(item.listIndex >= 0, model.has(item.id), `item ${item.id}`);
    }
  });
});
