/**
 * DocExample is one runnable grpcurl example of the docs: a fenced code block with a grpcurl
 * command in it, what the doc shows as its output, and the docs-test directives before it (see
 * docs/README.md for the convention).
 */
export interface DocExample {
  /** "docs/files.md:43", where the block starts. */
  readonly where: string;
  /** The block's text, run as one bash script. */
  readonly script: string;
  /** The ```json block right after it, when there is one: the output the doc shows. */
  readonly expected: string | undefined;
  /** Why the example is not run, when a `skip` directive says so. */
  readonly skip: string | undefined;
  /** The grpcurl error code (e.g. "NotFound") the block's last command ends with, if it fails on purpose. */
  readonly error: string | undefined;
  /** Files to create in the root (and working directory) before running it. */
  readonly files: readonly { path: string; content: string | Buffer }[];
  /** Files to remove from the root before running it. */
  readonly absent: readonly string[];
  /** Run in the repository (for scripts of the repo) instead of the fixture root. */
  readonly inRepo: boolean;
}

const directivePattern = /<!--\s*docs-test:\s*([\s\S]*?)\s*-->/g;

/**
 * extractExamples finds every fenced block of `text` that runs grpcurl (a line starting with
 * `grpcurl`, or piping into it), with the directives written in HTML comments since the
 * previous block, and the ```json block that follows it, if any, as its expected output.
 */
export function extractExamples(file: string, text: string): DocExample[] {
  const lines = text.split("\n");
  const examples: DocExample[] = [];
  let pending: string[] = [];
  let lastExample: { example: DocExample; endLine: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    for (const match of line.matchAll(directivePattern)) pending.push(match[1]!);
    if (line.includes("<!--") && line.includes("docs-test:") && !line.includes("-->")) {
      // A directive spanning lines: gather it whole.
      let j = i;
      let joined = line;
      while (!joined.includes("-->") && j + 1 < lines.length) joined += `\n${lines[++j]}`;
      for (const match of joined.matchAll(directivePattern)) pending.push(match[1]!);
      i = j;
      continue;
    }
    const fence = /^(\s*)```(\S*)\s*$/.exec(line);
    if (fence === null) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i++) body.push(lines[i]!.slice(fence[1]!.length));
    const content = body.join("\n");
    if (fence[2] === "json" && lastExample !== undefined && onlyBlank(lines, lastExample.endLine + 1, start)) {
      (lastExample.example as { expected: string | undefined }).expected = content;
      continue;
    }
    if (!/(^|\|\s*)grpcurl\s/m.test(content)) {
      pending = []; // directives before another kind of block are that block's (client-programs.ts)
      continue;
    }
    const example = parseDirectives(`${file}:${start + 1}`, content, pending);
    pending = [];
    examples.push(example);
    lastExample = { example, endLine: i };
  }
  return examples;
}

function onlyBlank(lines: string[], from: number, to: number): boolean {
  return lines.slice(from, to).every((l) => l.trim() === "");
}

/**
 * parseDirectives reads the directives (docs/README.md): `skip REASON`, `error CODE`,
 * `file PATH "json string"`, `bytes PATH SIZE`, `lines PATH COUNT`, `absent PATH`, `cwd repo`.
 */
function parseDirectives(where: string, script: string, directives: readonly string[]): DocExample {
  let skip: string | undefined;
  let error: string | undefined;
  const files: { path: string; content: string | Buffer }[] = [];
  const absent: string[] = [];
  let inRepo = false;
  for (const directive of directives) {
    const [verb, ...rest] = directive.split(/\s+/);
    const arg = directive.slice(verb!.length).trim();
    switch (verb) {
      case "skip":
        skip = arg || "no reason given";
        break;
      case "error":
        error = arg;
        break;
      case "file": {
        const space = arg.indexOf(" ");
        files.push({ path: arg.slice(0, space), content: JSON.parse(arg.slice(space + 1)) as string });
        break;
      }
      case "bytes":
        files.push({ path: rest[0]!, content: patternBytes(Number(rest[1])) });
        break;
      case "lines":
        files.push({
          path: rest[0]!,
          content: Array.from({ length: Number(rest[1]) }, (_, n) => `line ${n}\n`).join(""),
        });
        break;
      case "absent":
        absent.push(arg);
        break;
      case "cwd":
        if (arg !== "repo") throw new Error(`${where}: "cwd" takes only "repo"`);
        inRepo = true;
        break;
      default:
        throw new Error(`${where}: unknown docs-test directive "${directive}"`);
    }
  }
  return { where, script, expected: undefined, skip, error, files, absent, inRepo };
}

/** patternBytes is `size` bytes of a fixed binary pattern (so sizes and hashes are reproducible). */
function patternBytes(size: number): Buffer {
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i++) out[i] = (i * 31 + 7) & 0xff;
  return out;
}
