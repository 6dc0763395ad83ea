#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Packets of IP protocol 253 (RFC 3692's experimental, no ports), whose
flow hash and class a test chooses: each payload starts with the hash and
the classid that selftests/pinhash.bpf.c, a tc filter on the qdisc under
test, sets on the skb (a classid of 0 leaves the packet to the auto route),
then a flow number and a sequence number.

  rawflow.py send DST STEP...   STEP: HASH:CLASSID:FLOW:SEQ:SIZE, or
                                sleep:SECONDS; numbers as Python reads them
  rawflow.py recv [--quiet S] [--timeout S] [--ready FILE]
                                prints FLOW:SEQ per packet, in arrival order,
                                once nothing arrived for --quiet seconds
"""
import argparse
import socket
import struct
import sys
import time

PROTO = 253
HEAD = struct.Struct("!IIHH")


def send(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, PROTO)
    for step in a.steps:
        f = step.split(":")
        if f[0] == "sleep":
            time.sleep(float(f[1]))
            continue
        h, cid, flow, seq, size = (int(x, 0) for x in f)
        data = HEAD.pack(h, cid, flow, seq)
        data += bytes(max(0, size - len(data)))
        try:
            s.sendto(data, (a.dst, 0))
        except OSError as e:
            # A drop by the local qdisc is not the test's concern.
            print(f"rawflow: {step}: {e}", file=sys.stderr)


def recv(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, PROTO)
    if a.ready:
        open(a.ready, "w").close()
    s.settimeout(a.quiet)
    got = []
    deadline = time.monotonic() + a.timeout
    while time.monotonic() < deadline:
        try:
            data = s.recv(65535)
        except socket.timeout:
            if got:
                break
            continue
        ihl = (data[0] & 15) * 4
        if len(data) < ihl + HEAD.size:
            continue
        _, _, flow, seq = HEAD.unpack_from(data, ihl)
        got.append(f"{flow}:{seq}")
    print(" ".join(got))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    ps = sub.add_parser("send")
    ps.add_argument("dst")
    ps.add_argument("steps", nargs="+")
    pr = sub.add_parser("recv")
    pr.add_argument("--quiet", type=float, default=2.0)
    pr.add_argument("--timeout", type=float, default=60.0)
    pr.add_argument("--ready")
    a = p.parse_args()
    send(a) if a.cmd == "send" else recv(a)


if __name__ == "__main__":
    main()
