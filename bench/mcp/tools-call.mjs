// The Node half of bench/mcp/tools-call.sh: MCP tools/call over stdio, one call at a time, the
// MCP SDK client driving `toolhost mcp` and the reference filesystem server
// (@modelcontextprotocol/server-filesystem) in turn, call by call, in one process: a 35 KB text
// read, a one-replacement edit of a 4 KB file, a 10 MB text read. Each answer is checked. Prints
// p50, p99 and the ratio toolhost / reference per call, and writes the rows of the
// mcp-tools-call table (bench/lib/results.mjs).
//
// toolhost answers at most limits.tool_content_bytes of text per call (tools-call.sh sets the
// 1 MiB maximum), so its 10 MB read is the read tool's paging: calls with the offset and cursor
// each page's notice names until eof; one read is all its pages.
//
// Usage: node bench/mcp/tools-call.mjs --mcp-server JS --dir DIR --config FILE --rounds N --big-rounds M
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { openResults } from "../lib/results.mjs";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const { values } = parseArgs({
  options: {
    "mcp-server": { type: "string" },
    dir: { type: "string" },
    config: { type: "string" },
    rounds: { type: "string" },
    "big-rounds": { type: "string" },
  },
});
const dir = values.dir ?? ".";
const rounds = Number(values.rounds ?? "200");
const bigRounds = Number(values["big-rounds"] ?? "20");

async function connect(args, cwd) {
  const client = new Client({ name: "toolhost-bench", version: "0" });
  // The SDK's default 10 MiB line cap is under a 10 MB file's JSON answer.
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args, cwd, stderr: "ignore", maxBufferSize: 64 << 20 }),
  );
  await client.listTools(); // as an agent does first; the client then checks outputSchemas
  return client;
}

const servers = {
  reference: await connect([values["mcp-server"] ?? "", dir]),
  toolhost: await connect(["--import", "tsx", "src/cli.ts", "mcp", "--config", values.config ?? ""], repo),
};

const textOf = (result) => {
  if (result.isError) throw new Error(`tool failed: ${JSON.stringify(result.content).slice(0, 300)}`);
  return result.content.find((c) => c.type === "text")?.text ?? "";
};

const file35k = readFileSync(path.join(dir, "35k.txt"), "utf8");
const file10m = readFileSync(path.join(dir, "10m.txt"), "utf8");
const lines = (text) => text.split("\n").length - 1;

/** reads: one whole-file text read, per server; returns how many lines came back. */
const reads = {
  async reference(name) {
    return lines(
      textOf(await servers.reference.callTool({ name: "read_text_file", arguments: { path: path.join(dir, name) } })),
    );
  },
  async toolhost(name) {
    let offset = 0;
    let cursor;
    for (;;) {
      const result = await servers.toolhost.callTool({ name: "file_read", arguments: { path: name, offset, cursor } });
      // A cut page ends with a notice naming the offset (and cursor) to read on from, the cursor
      // also in structuredContent; the last page is all lines.
      const text = textOf(result);
      const next = /"offset": (\d+)(?:, "cursor": "[\w-]+")?\}\.\]$/.exec(text);
      if (next === null) return offset + lines(text);
      offset = Number(next[1]);
      cursor = result.structuredContent?.nextCursor;
    }
  },
};

/** edits: one replacement in a 4 KB file, back and forth; each server edits a file of its own. */
const edits = {
  async reference(from, to) {
    const text = textOf(
      await servers.reference.callTool({
        name: "edit_file",
        arguments: { path: path.join(dir, "edit-mcp.txt"), edits: [{ oldText: from, newText: to }] },
      }),
    );
    if (!text.includes(to)) throw new Error(`reference edit: ${text.slice(0, 200)}`);
  },
  async toolhost(from, to) {
    const result = await servers.toolhost.callTool({
      name: "file_edit",
      arguments: { path: "edit-toolhost.txt", edits: [{ replace: { oldText: from, newText: to } }] },
    });
    if (result.structuredContent?.replacements !== 1) throw new Error(`toolhost edit: ${textOf(result).slice(0, 200)}`);
  },
};

const work = {
  read35k: { rounds, run: async (who) => check(await reads[who]("35k.txt"), lines(file35k), who) },
  edit4k: {
    rounds,
    run: (who, i) =>
      i % 2 === 0 ? edits[who]("alpha-marker", "beta-marker") : edits[who]("beta-marker", "alpha-marker"),
  },
  read10m: { rounds: bigRounds, run: async (who) => check(await reads[who]("10m.txt"), lines(file10m), who) },
};

function check(got, want, who) {
  if (got !== want) throw new Error(`${who} read ${got} lines, not ${want}`);
}

const quantile = (xs, q) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};

const results = openResults("mcp-tools-call", {
  command: "bash bench/mcp/tools-call.sh",
  rounds,
  note: `${bigRounds} rounds of read10m; toolhost with tool_content_bytes 1 MiB, its 10 MB read paged`,
});
const order = ["reference", "toolhost"];
for (const [name, { rounds: n, run }] of Object.entries(work)) {
  const ms = { reference: [], toolhost: [] };
  for (let i = 0; i < n + 2; i++) {
    // Each round both, the first by turns; the first two rounds warm up and are not counted.
    for (const who of i % 2 === 0 ? order : [...order].reverse()) {
      const started = process.hrtime.bigint();
      await run(who, i);
      if (i >= 2) ms[who].push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
  const [r50, r99, t50, t99] = [
    quantile(ms.reference, 0.5),
    quantile(ms.reference, 0.99),
    quantile(ms.toolhost, 0.5),
    quantile(ms.toolhost, 0.99),
  ];
  const row = {
    call: name,
    "reference p50": `${r50.toFixed(2)} ms`,
    "reference p99": `${r99.toFixed(2)} ms`,
    "toolhost p50": `${t50.toFixed(2)} ms`,
    "toolhost p99": `${t99.toFixed(2)} ms`,
    "toolhost / reference (p50)": (t50 / r50).toFixed(2),
    "(p99)": (t99 / r99).toFixed(2),
    target: name === "read10m" ? "<= 0.1" : "<= 1.0",
  };
  results.row("mcp-tools-call", row);
  console.log(JSON.stringify(row));
}
await servers.reference.close();
await servers.toolhost.close();
