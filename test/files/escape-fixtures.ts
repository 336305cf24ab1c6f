import { mkdir, rename, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { scratchDir } from "./write-fixtures.js";

/**
 * EscapeFixture is a writable root with a directory `d`, and a directory `outside` that is in no
 * root but holds files of the same names, so that an escape shows as a change out there.
 */
export interface EscapeFixture {
  readonly root: string;
  readonly outside: string;
  readonly sandbox: Sandbox;
}

/** escapeFixture builds an EscapeFixture; `names` are created in both root/d and outside. */
export async function escapeFixture(names: readonly string[] = []): Promise<EscapeFixture> {
  const base = await scratchDir("escape-");
  const root = path.join(base, "root");
  const outside = path.join(base, "outside");
  await mkdir(path.join(root, "d"), { recursive: true });
  await mkdir(outside);
  for (const name of names) {
    await writeFile(path.join(root, "d", name), `inside ${name}`);
    await writeFile(path.join(outside, name), `outside ${name}`);
  }
  const sandbox = await createSandbox([{ path: root, readOnly: false }]);
  return { root: sandbox.roots[0]!.path, outside, sandbox };
}

/**
 * swapDirForLink moves root/d aside to root/<parked> and puts a symlink to `outside` in its
 * place: what an attacker does between the sandbox's check and the filesystem call.
 */
export async function swapDirForLink(f: EscapeFixture, parked = "parked"): Promise<string> {
  await rename(path.join(f.root, "d"), path.join(f.root, parked));
  await symlink(f.outside, path.join(f.root, "d"));
  return path.join(f.root, parked);
}
