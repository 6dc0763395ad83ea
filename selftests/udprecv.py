#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Receive the datagrams udpsend.py sends and check their order: each
flow (source address and port) must deliver its sequence numbers (payload
bytes 1-4) in increasing order.  Prints "received N reordered R flows F"
once nothing has arrived for --quiet seconds, or --timeout has passed."""
import argparse
import socket
import struct
import time


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("port", type=int)
    p.add_argument("--quiet", type=float, default=2.0)
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--ready", help="file created once the socket listens")
    a = p.parse_args()

    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind(("0.0.0.0", a.port))
    if a.ready:
        open(a.ready, "w").close()
    last = {}
    received = reordered = 0
    deadline = time.monotonic() + a.timeout
    s.settimeout(a.quiet)
    while time.monotonic() < deadline:
        try:
            data, src = s.recvfrom(65535)
        except socket.timeout:
            if received:
                break
            continue
        received += 1
        if len(data) < 5:
            continue
        seq = struct.unpack("!I", data[1:5])[0]
        if src in last and seq < last[src]:
            reordered += 1
        else:
            last[src] = seq
    print("received %d reordered %d flows %d" % (received, reordered,
                                                  len(last)))


if __name__ == "__main__":
    main()
