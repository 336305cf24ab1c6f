import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { builtCli } from "./built-cli.js";

/** McpStdioSession is an SDK client connected to a `toolhost mcp` child, and its stderr so far. */
export interface McpStdioSession {
  readonly client: Client;
  readonly stderr: () => string;
}

/**
 * startMcpStdio runs `toolhost mcp ARGS` (the compiled CLI) as a child process and connects the
 * MCP SDK's own Client to it over stdio, as a coding agent does.
 */
export async function startMcpStdio(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<McpStdioSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [builtCli, "mcp", ...args],
    env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "toolhost-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}
