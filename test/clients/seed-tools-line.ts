/**
 * seedToolsLines keeps, of a client program's "tools a,b,c,..." line, the seed's four file tools
 * it starts with: the clients print every tool the server lists, and the list grows as FileTools
 * does, while what these tests prove is that the generated client lists them in order.
 */
export function seedToolsLines(stdout: string): string[] {
  return stdout
    .trim()
    .split("\n")
    .map((line) => (line.startsWith("tools ") ? `tools ${line.slice(6).split(",").slice(0, 4).join(",")}` : line));
}
