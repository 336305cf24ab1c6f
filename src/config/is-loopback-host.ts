import { isIP } from "node:net";

/**
 * isLoopbackHost tells whether a host name or address (IPv6 without brackets) is this machine's
 * loopback: localhost, 127.0.0.0/8 or ::1.
 */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || (isIP(host) === 4 && host.startsWith("127."));
}
