// The Node half of bench/mcp/small-calls.sh: the same three small calls, one at a time, against
// the MCP reference filesystem server (@modelcontextprotocol/server-filesystem over stdio, through
// the MCP SDK client) or against toolhost through the TypeScript client as a user installs it
// (clients/ts built to clients/ts/dist, `node clients/ts/scripts/build.mjs`). Prints
// "server work milliseconds" per call.
//
// Plain JavaScript run by plain node, like the MCP SDK client it is compared with, so that the
// process carries no tsx loader (a second isolate) an installed client never has; with it, a small
// call cost the same to 0.15 ms more client CPU (bench/README.md, section mcp, 2026-12-01).
//
// `--client-dist DIR` takes the built client from DIR (bench/mcp/ts-client-ab.sh: another commit's);
// `--grpc-transport NAME` passes `grpcTransport: NAME` to its createClient (a client of a commit
// that still had several gRPC transports).
//
// `--cpu` also prints "server work.cpu milliseconds": the client process's CPU (user + system, all
// its threads) during each call.
//
// Usage: node bench/mcp/ts-and-mcp.mjs --toolhost ADDR --mcp-server JS --dir DIR --rounds N [--only mcp|ts] [--client-dist DIR] [--grpc-transport NAME] [--cpu]
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const { values } = parseArgs({
  options: {
    toolhost: { type: "string" },
    "mcp-server": { type: "string" },
    dir: { type: "string" },
    rounds: { type: "string" },
    only: { type: "string" },
    "client-dist": { type: "string" },
    "grpc-transport": { type: "string" },
    cpu: { type: "boolean" },
  },
});
// --only mcp|ts: one client in this process, so that none pays for another's garbage (the MCP
// client's 10 MB read leaves ~60 MB of JSON behind); small-calls.sh runs one of each in turn.
const servers = values.only === "mcp" || values.only === "ts" ? [values.only] : ["mcp", "ts"];
const dir = values.dir ?? ".";
const rounds = Number(values.rounds ?? "20");
const dist = path.resolve(values["client-dist"] ?? new URL("../../clients/ts/dist", import.meta.url).pathname);
const { createClient } = await import(pathToFileURL(path.join(dist, "src/index.js")).href);
const { ReadMode } = await import(pathToFileURL(path.join(dist, "gen/toolhost/files/v1/read_pb.js")).href);

const mcp = new Client({ name: "toolhost-bench", version: "0" });
if (servers.includes("mcp"))
  await mcp.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [values["mcp-server"] ?? "", dir],
      stderr: "ignore",
      maxBufferSize: 64 << 20,
    }),
  ); // the SDK's default 10 MiB line cap is under a 10 MB file's JSON answer
const grpcTransport = values["grpc-transport"];
const toolhost = createClient(
  values.toolhost ?? "127.0.0.1:50051",
  grpcTransport === undefined ? {} : { grpcTransport },
).files;

/** textOf checks that an MCP tool answered without error and returns its text length. */
function textOf(result) {
  if (result.isError) throw new Error(JSON.stringify(result.content).slice(0, 300));
  return result.content.reduce((n, c) => n + c.text.length, 0);
}

/** tsRead reads a text file through toolhost's ReadFile stream and returns its length. */
async function tsRead(file) {
  let n = 0;
  for await (const m of toolhost.readFile({ path: file, mode: ReadMode.TEXT }))
    if (m.part.case === "text") n += m.part.value.length;
  return n;
}

/** edit is the r-th round's replacement: the marker flips each round, so the file keeps its size. */
const edit = (r) =>
  r % 2 === 0
    ? { oldText: "alpha-marker", newText: "omega-marker" }
    : { oldText: "omega-marker", newText: "alpha-marker" };
/** toolhostCalls are the three calls through the TS client, editing edit-<who>.txt. */
const toolhostCalls = (who) => ({
  read35k: () => tsRead("35k.txt"),
  edit4k: (r) => toolhost.editFile({ path: `edit-${who}.txt`, edits: [{ kind: { case: "replace", value: edit(r) } }] }),
  read10m: () => tsRead("10m.txt"),
});
const calls = {
  mcp: {
    read35k: async () =>
      textOf(await mcp.callTool({ name: "read_text_file", arguments: { path: path.join(dir, "35k.txt") } })),
    edit4k: async (r) =>
      textOf(
        await mcp.callTool({
          name: "edit_file",
          arguments: {
            path: path.join(dir, "edit-mcp.txt"),
            edits: [edit(r)],
          },
        }),
      ),
    read10m: async () =>
      textOf(await mcp.callTool({ name: "read_text_file", arguments: { path: path.join(dir, "10m.txt") } })),
  },
  ts: toolhostCalls("ts"),
};
for (let round = -1; round < rounds; round++) {
  // round -1 warms both up and is not printed
  for (const work of ["read35k", "edit4k", "read10m"]) {
    for (const server of servers) {
      const cpu = values.cpu ? process.cpuUsage() : undefined;
      const start = performance.now();
      await calls[server][work](round + 1);
      const ms = performance.now() - start;
      if (round >= 0) {
        console.log(`${server} ${work} ${ms.toFixed(3)}`);
        if (cpu !== undefined) {
          const used = process.cpuUsage(cpu);
          console.log(`${server} ${work}.cpu ${((used.user + used.system) / 1000).toFixed(3)}`);
        }
      }
    }
  }
}
if (servers.includes("mcp")) await mcp.close();
process.exit(0);
