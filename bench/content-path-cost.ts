// content-path-cost.ts — A/B, in one process, of the per-call cost of the sandbox's content path
// against another checkout (e.g. a git worktree of main): the same small calls made through each
// tree's own modules on one local root, interleaved block by block (the order flipping every
// block), so both see the same machine load. Prints, per call, the median per-call time of each
// side over all blocks and the ratio this / base.
//
//   BASE=/path/to/other/checkout node --import tsx bench/content-path-cost.ts
//
// Calls: "read4k" (open a 4 KB file's content, read it whole, close: what ReadFile and StatFile do
// per call), "current4k" (open, read and close the entry of a held folder, as a write's commit
// does to hash the file it replaces: the atomic writer's openCurrent, through the content path
// here), "write4k" (WriteFile over a 4 KB file) and "edit4k" (EditFile, one replacement).
// Env: BASE (required), BLOCKS (20), CALLS (200 per block and call), ONLY (call names, space-separated).
import { constants, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const base = process.env["BASE"];
if (base === undefined) throw new Error("set BASE to the other checkout");
const blocks = Number(process.env["BLOCKS"] ?? 20);
const calls = Number(process.env["CALLS"] ?? 200);
const here = path.resolve(import.meta.dirname, "..");
const only = process.env["ONLY"]?.split(" ").filter(Boolean);

type Side = { name: string; run: Record<string, () => Promise<void>> };

/** side loads one checkout's sandbox, write and edit modules over a root of its own. */
async function side(name: string, tree: string): Promise<Side> {
  const load = (rel: string): Promise<Record<string, unknown>> =>
    import(pathToFileURL(path.join(tree, rel)).href) as Promise<Record<string, unknown>>;
  const { createSandbox } = (await load("src/sandbox/create-sandbox.ts")) as {
    createSandbox: (roots: unknown[]) => Promise<
      Record<
        string,
        (p: string) => Promise<{
          handle: { read(b: Buffer, o: number, l: number, p: number): Promise<unknown>; close(): Promise<void> };
        }>
      >
    >;
  };
  const { writeFile } = (await load("src/files/write/write-file.ts")) as {
    writeFile: (s: unknown, o: unknown) => Promise<unknown>;
  };
  const { editFile } = (await load("src/files/edit/edit-file.ts")) as {
    editFile: (s: unknown, o: unknown) => Promise<unknown>;
  };
  type Handle = { read(b: Buffer, o: number, l: number, p: number): Promise<unknown>; close(): Promise<void> };
  const { nodeFsOps } = (await load("src/files/write/fs-ops.ts")) as {
    nodeFsOps: { openCurrent: (...args: unknown[]) => Promise<Handle> };
  };
  const root = mkdtempSync(path.join(tmpdir(), `content-cost-${name}-`));
  process.on("exit", () => rmSync(root, { recursive: true, force: true }));
  const body = "x".repeat(4000) + "\n";
  writeFileSync(path.join(root, "r.txt"), body);
  writeFileSync(path.join(root, "w.txt"), body);
  writeFileSync(path.join(root, "e.txt"), `alpha-marker\n${body}`);
  const sandbox = await createSandbox([{ path: root, readOnly: false }]);
  const open = (sandbox["openContent"] ?? sandbox["openReader"])!.bind(sandbox);
  const buffer = Buffer.alloc(8192);
  const folder = { fd: openSync(root, constants.O_RDONLY | constants.O_DIRECTORY) };
  // main's openCurrent(file, inPlace) opened the name with O_RDONLY; this tree's goes through the content path.
  const current = (): Promise<Handle> =>
    nodeFsOps.openCurrent.length <= 2
      ? nodeFsOps.openCurrent(`/proc/self/fd/${folder.fd}/r.txt`, true)
      : nodeFsOps.openCurrent(sandbox, folder, "r.txt", "r.txt", true);
  let flip = 0;
  return {
    name,
    run: {
      read4k: async () => {
        const file = await open("r.txt");
        await file.handle.read(buffer, 0, buffer.length, 0);
        await file.handle.close();
      },
      current4k: async () => {
        const handle = await current();
        await handle.read(buffer, 0, buffer.length, 0);
        await handle.close();
      },
      write4k: async () => void (await writeFile(sandbox, { path: "w.txt", content: { text: body } })),
      edit4k: async () => {
        const [from, to] = flip++ % 2 === 0 ? ["alpha-marker", "omega-marker"] : ["omega-marker", "alpha-marker"];
        await editFile(sandbox, {
          path: "e.txt",
          edits: [{ kind: "replace", oldText: from, newText: to }],
          maxEditBytes: 1 << 20,
        });
      },
    },
  };
}

const sides = [await side("base", path.resolve(base)), await side("this", here)];
const times: Record<string, Record<string, number[]>> = {};
for (let block = 0; block < blocks; block++) {
  for (const s of block % 2 === 0 ? sides : [...sides].reverse()) {
    for (const [call, run] of Object.entries(s.run)) {
      if (only !== undefined && !only.includes(call)) continue;
      for (let i = 0; i < 10; i++) await run(); // warm
      const start = process.hrtime.bigint();
      for (let i = 0; i < calls; i++) await run();
      const perCall = Number(process.hrtime.bigint() - start) / 1000 / calls;
      ((times[call] ??= {})[s.name] ??= []).push(perCall);
    }
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`base: ${base}; ${blocks} blocks of ${calls} calls each, interleaved`);
console.log("| call | base us/call | this us/call | this / base |");
console.log("|---|---|---|---|");
for (const [call, t] of Object.entries(times)) {
  const [b, n] = [median(t["base"]!), median(t["this"]!)];
  console.log(`| ${call} | ${b.toFixed(1)} | ${n.toFixed(1)} | ${(n / b).toFixed(2)} |`);
}
