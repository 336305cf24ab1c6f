/** splitHostPort splits "host:port" (IPv6 hosts in brackets) into its parts. */
export function splitHostPort(listen: string): [string, number] {
  const at = listen.lastIndexOf(":");
  const host = listen.slice(0, at).replace(/^\[(.*)\]$/, "$1");
  return [host, Number(listen.slice(at + 1))];
}
