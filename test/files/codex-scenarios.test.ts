import assert from "node:assert/strict";
import { cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Codex's own apply-patch scenarios (test/fixtures/codex-apply-patch/README.md says where from),
// run on both faces of toolhost's ApplyPatch: the RPC and the model's apply_patch tool (CallTool).
// Each leaves the tree Codex leaves, except where toolhost differs on purpose; docs/tools.md
// lists every difference from Codex.

const scenariosDir = resolve("test/fixtures/codex-apply-patch/scenarios");

/** deliberate are the scenarios where toolhost leaves the input untouched instead, and why. */
const deliberate: Record<string, { reason: string; why: string }> = {
  "010_move_overwrites_existing_destination": {
    reason: "ALREADY_EXISTS",
    why: "a Move to onto an existing file is refused, not overwritten: a model that never read the target would destroy it unseen",
  },
  "011_add_overwrites_existing_file": {
    reason: "ALREADY_EXISTS",
    why: "Add File over an existing file is refused, not overwritten, for the same reason; Update File changes an existing file",
  },
  "015_failure_after_partial_success_leaves_changes": {
    reason: "NOT_FOUND",
    why: "a patch applies all or nothing: the file added before the failing section is put back, where Codex leaves it",
  },
};

type Tree = Record<string, string>;

async function treeOf(dir: string, prefix = ""): Promise<Tree> {
  const out: Tree = {};
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const rel = prefix + e.name;
    if (e.isDirectory()) Object.assign(out, await treeOf(join(dir, e.name), `${rel}/`));
    else out[rel] = (await readFile(join(dir, e.name))).toString("latin1");
  }
  return out;
}

/** Face is one way to call ApplyPatch: it resolves to the error reason, or "" when it applied. */
type Face = (server: TestServer, patch: string) => Promise<string>;

const faces: Record<string, Face> = {
  "ApplyPatch RPC": async (server, patch) => {
    try {
      await server.fileTools.applyPatch({ patch });
      return "";
    } catch (err) {
      return ConnectError.from(err).findDetails(ErrorInfoSchema)[0]?.reason ?? "UNKNOWN";
    }
  },
  "CallTool file_apply_patch": async (server, patch) => {
    const res = await server.tools.callTool({ name: "file_apply_patch", arguments: JSON.stringify({ patch }) });
    return res.isError ? res.reason : "";
  },
};

async function reset(root: string, files: Tree): Promise<void> {
  for (const name of await readdir(root)) await rm(join(root, name), { recursive: true, force: true });
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(join(root, rel, ".."), { recursive: true });
    await writeFile(join(root, rel), Buffer.from(content, "latin1"));
  }
}

describe("Codex's apply-patch scenarios, on the RPC and on CallTool", async () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const scenarios = (await readdir(scenariosDir, { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();

  it("has every scenario of the fixture folder", () => {
    assert.equal(scenarios.length, 23);
    for (const name of Object.keys(deliberate)) assert.ok(scenarios.includes(name), name);
  });

  for (const name of scenarios) {
    for (const [faceName, face] of Object.entries(faces)) {
      const differs = deliberate[name];
      it(`${name} (${faceName})${differs ? `: differs on purpose, ${differs.why}` : ""}`, async () => {
        const dir = join(scenariosDir, name);
        const input = await treeOf(join(dir, "input"));
        const expected = await treeOf(join(dir, "expected"));
        const patch = await readFile(join(dir, "patch.txt"), "utf8");
        await reset(server.root, input);
        const reason = await face(server, patch);
        const left = await treeOf(server.root);
        if (differs !== undefined) {
          assert.equal(reason, differs.reason);
          assert.deepEqual(left, input, "nothing changed");
          return;
        }
        assert.deepEqual(left, expected);
        // Codex refuses exactly the scenarios that leave the input as it was.
        assert.equal(reason !== "", JSON.stringify(expected) === JSON.stringify(input), `reason ${reason}`);
      });
    }
  }
});

/**
 * codexUnitCases are cases from Codex's own unit tests (codex-rs/apply-patch: tests/suite/tool.rs,
 * src/parser.rs, src/invocation.rs, src/seek_sequence.rs), with the result Codex asserts.
 */
const codexUnitCases: { title: string; input: Tree; patch: string; expected: Tree }[] = [
  {
    title: "tool.rs preserves_crlf_from_target_file: new lines in a CRLF file get CRLF",
    input: { "crlf.txt": "one\r\ntwo\r\nthree\r\n" },
    patch: "*** Begin Patch\n*** Update File: crlf.txt\n@@\n-one\n+uno\n@@\n two\n+\n+between\n three\n*** End Patch",
    expected: { "crlf.txt": "uno\r\ntwo\r\n\r\nbetween\r\nthree\r\n" },
  },
  {
    title: "tool.rs preserves_untouched_mixed_line_endings: every line keeps its own ending",
    input: { "mixed.txt": "one\r\ntwo\nthree\r\nfour\n" },
    patch: "*** Begin Patch\n*** Update File: mixed.txt\n@@\n one\n two\n-three\n+THREE\n four\n*** End Patch",
    expected: { "mixed.txt": "one\r\ntwo\nTHREE\r\nfour\n" },
  },
  {
    title: "tool.rs preserves_repeated_context_line_ending: the kept line is the context line",
    input: { "repeated_context.txt": "same\r\nsame\n" },
    patch: "*** Begin Patch\n*** Update File: repeated_context.txt\n@@\n-same\n same\n*** End Patch",
    expected: { "repeated_context.txt": "same\n" },
  },
  {
    title: "tool.rs uses_crlf_for_new_trailing_newline",
    input: { "no_trailing_newline.txt": "one\r\ntwo" },
    patch: "*** Begin Patch\n*** Update File: no_trailing_newline.txt\n@@\n-one\n+ONE\n*** End Patch",
    expected: { "no_trailing_newline.txt": "ONE\r\ntwo\r\n" },
  },
  {
    title: "tool.rs preserves_change_order_with_repeated_lines",
    input: { "repeated.txt": "a\nb\n" },
    patch: "*** Begin Patch\n*** Update File: repeated.txt\n@@\n-a\n-b\n+b\n+b\n+a\n*** End Patch",
    expected: { "repeated.txt": "b\nb\na\n" },
  },
  {
    title: "parser.rs: a blank line after *** End of File is skipped",
    input: { "a.txt": "x\ny\n" },
    patch: "*** Begin Patch\n*** Update File: a.txt\n@@\n x\n-y\n+z\n*** End of File\n\n*** End Patch",
    expected: { "a.txt": "x\nz\n" },
  },
  {
    title: "parser.rs: blank lines after *** End of File, before the next file, are skipped",
    input: { "a.txt": "1\n2\n" },
    patch:
      "*** Begin Patch\n*** Update File: a.txt\n@@\n-2\n+two\n*** End of File\n\n   \n*** Add File: b.txt\n+b\n*** End Patch",
    expected: { "a.txt": "1\ntwo\n", "b.txt": "b\n" },
  },
  {
    title: "parser.rs: a blank line before a section's first hunk is skipped",
    input: { "a.txt": "1\n2\n" },
    patch: "*** Begin Patch\n*** Update File: a.txt\n\n@@\n-1\n+one\n*** End Patch",
    expected: { "a.txt": "one\n2\n" },
  },
  {
    title: "parser.rs: a trailing blank line after a hunk is context that may stand for the end",
    input: { "a.txt": "x\ny\n" },
    patch: "*** Begin Patch\n*** Update File: a.txt\n@@\n-y\n+z\n\n*** End Patch",
    expected: { "a.txt": "x\nz\n" },
  },
  {
    title: "seek_sequence.rs: the fourth rung folds dashes, quotes and odd spaces to ASCII",
    input: { "u.py": "# Say \u201chello\u201d \u2013 it\u2019s\u00a0fine\nx = 1\n" },
    patch:
      '*** Begin Patch\n*** Update File: u.py\n@@\n-# Say "hello" - it\'s fine\n+# Say hello\n x = 1\n*** End Patch',
    expected: { "u.py": "# Say hello\nx = 1\n" },
  },
  {
    title: "seek_sequence.rs: the fold also finds an @@ anchor",
    input: { "u.md": "## Step\u20111\nold\n" },
    patch: "*** Begin Patch\n*** Update File: u.md\n@@ ## Step-1\n-old\n+new\n*** End Patch",
    expected: { "u.md": "## Step\u20111\nnew\n" },
  },
  {
    title: "parser.rs test_parse_patch_lenient: <<EOF heredoc",
    input: { "file2.py": "import foo\n" },
    patch: "<<EOF\n*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch\nEOF\n",
    expected: { "file2.py": "import foo\nbar\n" },
  },
  {
    title: "parser.rs test_parse_patch_lenient: <<'EOF' heredoc",
    input: { "file2.py": "import foo\n" },
    patch: "<<'EOF'\n*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch\nEOF\n",
    expected: { "file2.py": "import foo\nbar\n" },
  },
  {
    title: 'parser.rs test_parse_patch_lenient: <<"EOF" heredoc',
    input: { "file2.py": "import foo\n" },
    patch: '<<"EOF"\n*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch\nEOF\n',
    expected: { "file2.py": "import foo\nbar\n" },
  },
  {
    title: "invocation.rs test_heredoc: apply_patch <<'PATCH' ... PATCH",
    input: {},
    patch: "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch\nPATCH",
    expected: { foo: "hi\n" },
  },
  {
    title: "invocation.rs test_heredoc_applypatch: applypatch <<'PATCH'",
    input: {},
    patch: "applypatch <<'PATCH'\n*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch\nPATCH",
    expected: { foo: "hi\n" },
  },
  {
    title: "invocation.rs test_heredoc_with_leading_cd: cd foo && apply_patch <<'PATCH'",
    input: { "foo/.keep": "" },
    patch: "cd foo && apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: bar.txt\n+hi\n*** End Patch\nPATCH",
    expected: { "foo/.keep": "", "foo/bar.txt": "hi\n" },
  },
  {
    title: "invocation.rs test_cd_single_quoted_path_with_spaces",
    input: { "foo bar/old.txt": "before\n" },
    patch:
      "cd 'foo bar' && apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: old.txt\n*** Move to: renamed.txt\n@@\n-before\n+after\n*** End Patch\nPATCH",
    expected: { "foo bar/renamed.txt": "after\n" },
  },
];

/** codexRefusals are forms Codex's tests show it refusing; toolhost refuses them too. */
const codexRefusals: { title: string; patch: string }[] = [
  {
    title: "parser.rs: mismatched heredoc quotes",
    patch: "<<\"EOF'\n*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch\nEOF\n",
  },
  {
    title: "parser.rs: heredoc without *** End Patch",
    patch: "<<EOF\n*** Begin Patch\n*** Update File: file2.py\nEOF\n",
  },
  {
    title: "invocation.rs test_cd_with_semicolon_is_ignored",
    patch: "cd foo; apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch\nPATCH",
  },
  {
    title: "invocation.rs test_echo_and_apply_patch_is_ignored",
    patch: "echo foo && apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch\nPATCH",
  },
  {
    title: "invocation.rs test_apply_patch_with_arg_is_ignored",
    patch: "apply_patch foo <<'PATCH'\n*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch\nPATCH",
  },
  {
    title: "invocation.rs test_cd_two_args_is_ignored",
    patch: "cd foo bar && apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch\nPATCH",
  },
  {
    title: "a heredoc whose delimiter does not close it",
    patch: "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch\nEOF",
  },
];

/** bytesOf turns a tree of texts into the form treeOf reads (each byte one latin1 character). */
function bytesOf(tree: Tree): Tree {
  return Object.fromEntries(Object.entries(tree).map(([k, v]) => [k, Buffer.from(v, "utf8").toString("latin1")]));
}

describe("Codex's own unit tests of apply-patch, on the RPC and on CallTool", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  for (const row of codexUnitCases) {
    for (const [faceName, face] of Object.entries(faces)) {
      it(`${row.title} (${faceName})`, async () => {
        await reset(server.root, bytesOf(row.input));
        const reason = await face(server, row.patch);
        assert.equal(reason, "");
        assert.deepEqual(await treeOf(server.root), bytesOf(row.expected));
      });
    }
  }

  for (const row of codexRefusals) {
    for (const [faceName, face] of Object.entries(faces)) {
      it(`refuses ${row.title} (${faceName}) and changes nothing`, async () => {
        await reset(server.root, { "file2.py": "import foo\n" });
        assert.equal(await face(server, row.patch), "PATCH_INVALID");
        assert.deepEqual(await treeOf(server.root), { "file2.py": "import foo\n" });
      });
    }
  }
});
