#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Receive the stamped UDP responses of selftests/rpcload.py and time each
one (make bench, the SLO phase): a response's time runs from its first
datagram's send (the stamp) to its last datagram's arrival, taken by the
kernel (SO_TIMESTAMPNS, the same clock in every namespace of the guest), so
the receiver's own scheduling does not count.  Also counts datagrams that
arrive behind a later one of the same source port (reordered).

Writes JSON: {"responses": {NUMBER: [DATAGRAMS_RECEIVED, TIME_NS]},
"burst": datagrams per response, "datagrams": received, "reordered": N}."""
import argparse
import json
import select
import socket
import struct
import time

HDR = struct.Struct("!IHHQ")	# as selftests/rpcload.py sends it
TS = struct.Struct("=qq")	# struct timespec
# SO_TIMESTAMPNS (asm-generic/socket.h; Python's socket module lacks it)
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bind", default="0.0.0.0")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--seconds", type=float, required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()

    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.bind((a.bind, a.port))
    s.setblocking(False)
    resp = {}
    last = {}
    burst = 0
    got = reordered = 0
    end = time.monotonic() + a.seconds
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        if not select.select([s], [], [], left)[0]:
            continue
        while True:
            try:
                data, anc, _, src = s.recvmsg(2048, socket.CMSG_SPACE(TS.size))
            except BlockingIOError:
                break
            if len(data) < HDR.size:
                continue
            num, idx, burst, t_ns = HDR.unpack_from(data)
            arr = time.time_ns()
            for lvl, typ, cd in anc:
                if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS:
                    sec, nsec = TS.unpack_from(cd)
                    arr = sec * 1000000000 + nsec
            got += 1
            if (num, idx) < last.get(src[1], (-1, -1)):
                reordered += 1
            else:
                last[src[1]] = (num, idx)
            r = resp.setdefault(num, [0, 0])
            r[0] += 1
            r[1] = max(r[1], arr - t_ns)
    with open(a.out, "w") as f:
        json.dump({"responses": resp, "burst": burst, "datagrams": got,
                   "reordered": reordered}, f)


if __name__ == "__main__":
    main()
