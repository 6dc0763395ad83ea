#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send UDP datagrams with a chosen skb->priority, TOS and first payload
byte, so the aiclass selftests can drive each classification route (the
priority, the priomap, RoCEv2 opcodes, burst sizes) packet by packet.
Bytes 1-4 of every payload of 5 bytes or more carry the datagram's
sequence number in its flow (big endian, from 0), for udprecv.py."""
import argparse
import socket
import struct
import time


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("dst")
    p.add_argument("port", type=int)
    p.add_argument("-n", "--count", type=int, default=1)
    p.add_argument("-s", "--size",
                   type=lambda v: [int(b) for b in v.split(",")],
                   default=[100], help="UDP payload bytes; a comma-separated "
                   "list is used in turn, as --first-byte")
    p.add_argument("-p", "--priority", type=lambda v: int(v, 0), default=0,
                   help="SO_PRIORITY, e.g. 0x10011 for class 1:11")
    p.add_argument("-t", "--tos", type=lambda v: int(v, 0), default=0)
    p.add_argument("-b", "--first-byte",
                   type=lambda v: [int(b, 0) for b in v.split(",")],
                   default=[0], help="first payload byte (RoCE BTH opcode); "
                   "a comma-separated list is used in turn, datagram by "
                   "datagram of each flow")
    p.add_argument("-S", "--sport", type=int, default=0)
    p.add_argument("-f", "--flows", type=int, default=1,
                   help="flows from source ports SPORT, SPORT+1, ..., "
                   "COUNT datagrams each, sent in turn")
    p.add_argument("-q", "--first-seq", type=int, default=0,
                   help="sequence number of each flow's first datagram")
    p.add_argument("-g", "--gso", type=int, default=0,
                   help="UDP_SEGMENT: send each datagram as one GSO packet "
                   "of segments of this many payload bytes")
    p.add_argument("-i", "--interval", type=float, default=0,
                   help="seconds between rounds (a datagram per flow)")
    p.add_argument("-e", "--each", action="store_true",
                   help="--interval between every datagram, not round")
    a = p.parse_args()

    if a.flows > 1 and not a.sport:
        p.error("--flows needs --sport")
    socks = []
    for i in range(a.flows):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, a.priority)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, a.tos)
        if a.gso:
            s.setsockopt(socket.IPPROTO_UDP, 103, a.gso)   # UDP_SEGMENT
        if a.sport:
            s.bind(("0.0.0.0", a.sport + i))
        socks.append(s)
    for k in range(a.count):
        first = bytes([a.first_byte[k % len(a.first_byte)]])
        size = a.size[k % len(a.size)]
        if size >= 5:
            seq = (a.first_seq + k) & 0xffffffff
            payload = first + struct.pack("!I", seq) + bytes(size - 5)
        else:
            payload = first + bytes(max(size - 1, 0))
        for s in socks:
            s.sendto(payload, (a.dst, a.port))
            if a.interval and a.each:
                time.sleep(a.interval)
        if a.interval and not a.each:
            time.sleep(a.interval)


if __name__ == "__main__":
    main()
