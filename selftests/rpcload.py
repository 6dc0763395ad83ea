#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Offer an inference load of UDP responses at a set rate: each response is
BURST datagrams of SIZE payload bytes sent back to back by one of FLOWS
flows (source ports SPORT, SPORT+1, ... in turn), the responses started
on a fixed schedule (absolute times, so a late wake-up does not lower the
rate), for SECONDS.  Prints the responses and bytes it sent.

Each datagram begins with a stamp (HDR: the response's number, the
datagram's index in it, the response's datagrams, and the wall-clock time
of its first datagram's send in ns), which tools/bench/slosink.py times at
the receiver.  --out FILE writes the schedule as JSON: every response's
number and send time."""
import argparse
import json
import socket
import struct
import time

HDR = struct.Struct("!IHHQ")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("dst")
    p.add_argument("port", type=int)
    p.add_argument("-r", "--rate", type=float, required=True,
                   help="payload bytes per second")
    p.add_argument("-s", "--size", type=int, default=1400)
    p.add_argument("-b", "--burst", type=int, default=4,
                   help="datagrams per response")
    p.add_argument("-f", "--flows", type=int, default=8)
    p.add_argument("-S", "--sport", type=int, default=20000)
    p.add_argument("-t", "--tos", type=lambda v: int(v, 0), default=0)
    p.add_argument("-T", "--seconds", type=float, default=5)
    p.add_argument("-o", "--out", help="the responses sent, as JSON")
    a = p.parse_args()
    if a.size < HDR.size:
        p.error("--size must hold the %d-byte stamp" % HDR.size)

    socks = []
    for i in range(a.flows):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, a.tos)
        s.bind(("0.0.0.0", a.sport + i))
        socks.append(s)
    pad = bytes(a.size - HDR.size)
    starts = []
    gap = a.burst * a.size / a.rate
    start = time.monotonic()
    nxt = start
    sent = 0
    while nxt < start + a.seconds:
        delay = nxt - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        s = socks[sent % a.flows]
        t_ns = time.time_ns()
        starts.append(t_ns)
        for i in range(a.burst):
            try:
                s.sendto(HDR.pack(sent, i, a.burst, t_ns) + pad,
                         (a.dst, a.port))
            except OSError:
                pass	# a full socket buffer: the sender's own loss
        sent += 1
        nxt += gap
    print(sent, sent * a.burst * a.size)
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"burst": a.burst, "size": a.size, "flows": a.flows,
                       "rate": a.rate, "starts_ns": starts}, f)


if __name__ == "__main__":
    main()
