#!/usr/bin/env python3
"""exchange-loop: swaps two directory entries atomically, over and over, for race tests.

Usage: exchange-loop.py A B [SECONDS]

renameat2(A, B, RENAME_EXCHANGE) in a tight loop: at every instant exactly one of the two names
holds each entry, so a server that checks a path and then uses it again by name can be caught
with a component swapped (typically a real directory exchanged with a symlink to outside the
roots). Runs until SECONDS have passed (default 30) or stdin closes, then prints the number of
exchanges made and leaves the entries as they were at the start (an even number of swaps).
Node has no binding for renameat2, and an ordinary rename loop leaves windows where neither
name exists, which tests far less than the attack did; hence this small script (ctypes, no deps).
"""
import ctypes
import os
import select
import sys
import time

RENAME_EXCHANGE = 2
AT_FDCWD = -100


def main() -> int:
    a, b = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 30.0
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = libc.renameat2
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    deadline = time.monotonic() + seconds
    swaps = 0
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        for _ in range(256):
            if renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
                err = ctypes.get_errno()
                sys.stderr.write(f"renameat2: {os.strerror(err)}\n")
                return 1
            swaps += 1
        if time.monotonic() > deadline:
            break
        ready, _, _ = select.select([sys.stdin], [], [], 0)
        if ready and sys.stdin.buffer.read1(1) == b"":
            break
    if swaps % 2 == 1:
        renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
        swaps += 1
    sys.stdout.write(f"{swaps}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
