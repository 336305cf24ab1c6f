/** procFdPath is the /proc path naming an open descriptor, when /proc is available. */
export function procFdPath(fd: number): string {
  return `/proc/self/fd/${fd}`;
}
