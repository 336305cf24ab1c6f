import { chmod, link, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { sha256Hex } from "../../src/files/content-hash.js";
import { scratchDir } from "../files/write-fixtures.js";

/** secretText is what the outside file holds: no reply, error or copy may ever carry it. */
export const secretText = "TOP SECRET: the outside file's content\n";

/** secretSha256 is its hash: an answer naming it tells the caller what the outside file holds. */
export const secretSha256 = sha256Hex(secretText);

/** HardLinkFixture is a root whose innocent.txt is a second name of a 0600 file outside it. */
export interface HardLinkFixture {
  readonly root: string;
  /** The outside file: 0600, not in any root. */
  readonly secret: string;
}

/**
 * hardLinkFixture makes a root holding innocent.txt (a hard link to an outside 0600 secret),
 * tree/innocent.txt (another link to it, beside tree/plain.txt, an ordinary file) and plain.txt:
 * a file, a folder to copy recursively, and something harmless for the probes that need one.
 */
export async function hardLinkFixture(): Promise<HardLinkFixture> {
  const base = await scratchDir("hard-link-");
  const root = path.join(base, "root");
  await mkdir(path.join(root, "tree"), { recursive: true });
  const secret = path.join(base, "secret.txt");
  await writeFile(secret, secretText);
  await chmod(secret, 0o600);
  await link(secret, path.join(root, "innocent.txt"));
  await link(secret, path.join(root, "tree", "innocent.txt"));
  await writeFile(path.join(root, "tree", "plain.txt"), "plain\n");
  await writeFile(path.join(root, "plain.txt"), "plain\n");
  return { root, secret };
}

/** leaks tells whether any text (a reply, an error message) carries the secret or its hash. */
export function leaks(text: string): boolean {
  return text.includes(secretText.trim()) || text.includes("TOP SECRET") || text.toLowerCase().includes(secretSha256);
}
