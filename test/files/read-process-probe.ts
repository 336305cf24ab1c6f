import { readdir, readFile } from "node:fs/promises";
import { createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";

/** rssBytes reads a process's resident set size from /proc/PID/status (VmRSS). */
export async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (match === null) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** openFds counts a process's open file descriptors (/proc/PID/fd). */
export async function openFds(pid: number): Promise<number> {
  return (await readdir(`/proc/${pid}/fd`)).length;
}

/** openFileTargets lists what a process's descriptors point to under `dir`. */
export async function openFilesUnder(pid: number, dir: string): Promise<string[]> {
  const { readlink } = await import("node:fs/promises");
  const targets: string[] = [];
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
    if (target.startsWith(dir)) targets.push(target);
  }
  return targets;
}

/** procAvailable tells whether /proc can be read (Linux); the process tests skip otherwise. */
export async function procAvailable(): Promise<boolean> {
  return readFile(`/proc/${process.pid}/status`, "utf8").then(
    () => true,
    () => false,
  );
}

/** fileToolsClient connects a generated FileTools client to a gRPC address. */
export function fileToolsClient(address: string): Client<typeof FileTools> {
  return createClient(FileTools, createGrpcTransport({ baseUrl: `http://${address}` }));
}

/** waitFor polls `check` until it holds or `deadlineMs` passes; returns whether it held. */
export async function waitFor(check: () => Promise<boolean>, deadlineMs: number): Promise<boolean> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}
