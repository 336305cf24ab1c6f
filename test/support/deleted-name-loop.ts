/**
 * deletedNameLoop is a Python program (argv: target, folder, seconds, count) that hard-links
 * `target` into `folder` as "x<K>.txt (deleted)" for K < count, then renames each to "x<K>.txt"
 * and removes it, in a loop. A read that held "x<K>.txt (deleted)" and counted after the removal
 * sees one link (the outside name), and a /proc link "<folder>/x<K>.txt (deleted)": the kernel's
 * mark for the removed "x<K>.txt", which is also, byte for byte, "<folder>/" + the name it was
 * opened by. Prints "ready", then the number of rounds.
 */
export const deletedNameLoop = `
import os, sys, time
target, folder, seconds, count = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
marked = [os.path.join(folder, "x%d.txt (deleted)" % k) for k in range(count)]
plain = [os.path.join(folder, "x%d.txt" % k) for k in range(count)]
deadline = time.monotonic() + seconds
n = 0
print("ready", flush=True)
while time.monotonic() < deadline:
    for k in range(count):
        try:
            os.link(target, marked[k])
        except OSError:
            pass
    for k in range(count):
        try:
            os.rename(marked[k], plain[k])
            os.unlink(plain[k])
        except OSError:
            pass
    n += 1
print(n, flush=True)
`;
