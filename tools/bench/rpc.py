#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Inference RPCs in Poisson bursts, each RPC timed (make bench).

server: answers each request on a persistent TCP connection.  A request is
an 8-byte header (request bytes, response bytes; network order) and the
request body; the answer is the response bytes.

client: keeps a pool of connections.  Bursts arrive as a Poisson process
(--rate bursts per second); a burst is 1..--burst RPCs issued at once, each
on its own idle connection, with a response size drawn from --sizes.  An
RPC's time runs from its request's send to the last byte of its response.
Writes JSON: one [latency_us, response_bytes, start_s] per completed RPC.
With --new-conn every RPC opens a connection of its own and closes it
when answered (short connections; its time includes the handshake).

The server runs where the responses must cross the bottleneck (the sender
side of the dumbbell), the client on the far side: the requests are small,
the responses (a few hundred bytes to tens of KB) are what is queued.
"""
import argparse
import json
import random
import selectors
import socket
import struct
import time

HDR = struct.Struct("!II")


def server(a):
    """One thread, non-blocking: under TCG a thread per connection spends
    more time handing the GIL around than answering."""
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((a.bind, a.port))
    ls.listen(256)
    ls.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(ls, selectors.EVENT_READ, None)
    payload = memoryview(bytes(1 << 20))
    buf = bytearray(1 << 16)
    # per connection: [bytes received not yet parsed, bytes left to send]
    state = {}
    while True:
        for key, ev in sel.select():
            if key.data is None:
                conn, _ = ls.accept()
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                conn.setblocking(False)
                state[conn] = [bytearray(), 0]
                sel.register(conn, selectors.EVENT_READ, conn)
                continue
            conn = key.data
            st = state[conn]
            if ev & selectors.EVENT_READ:
                try:
                    k = conn.recv_into(buf)
                except BlockingIOError:
                    k = -1
                if k == 0:
                    sel.unregister(conn)
                    conn.close()
                    del state[conn]
                    continue
                if k > 0:
                    st[0] += buf[:k]
                while len(st[0]) >= HDR.size:
                    req, resp = HDR.unpack_from(st[0])
                    if len(st[0]) < HDR.size + req:
                        break
                    del st[0][:HDR.size + req]
                    st[1] += resp
            if st[1]:
                try:
                    st[1] -= conn.send(payload[:min(st[1], len(payload))])
                except BlockingIOError:
                    pass
                sel.modify(conn, selectors.EVENT_READ |
                           (selectors.EVENT_WRITE if st[1] else 0), conn)


class Conn:
    def __init__(self, dst, port):
        self.s = socket.create_connection((dst, port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.s.setblocking(False)
        self.want = 0
        self.got = 0
        self.t0 = 0.0


def client(a):
    rng = random.Random(a.seed)
    sizes = [int(x) for x in a.sizes.split(",")]
    conns = [] if a.new_conn else [Conn(a.dst, a.port) for _ in range(a.conns)]
    free = list(conns)
    sel = selectors.DefaultSelector()
    for c in conns:
        sel.register(c.s, selectors.EVENT_READ, c)
    opened = 0
    buf = bytearray(1 << 16)
    req_body = bytes(a.request)
    out = []
    missed = 0
    start = time.monotonic()
    end = start + a.duration
    next_burst = start + rng.expovariate(a.rate)
    busy = 0
    while True:
        now = time.monotonic()
        if now >= end and busy == 0:
            break
        if now >= next_burst and now < end:
            for _ in range(rng.randint(1, a.burst)):
                if a.new_conn and busy < a.conns:
                    t0 = time.monotonic()
                    c = Conn(a.dst, a.port)
                    c.t0 = t0
                    sel.register(c.s, selectors.EVENT_READ, c)
                    opened += 1
                elif not free:
                    missed += 1
                    continue
                else:
                    c = free.pop()
                    c.t0 = time.monotonic()
                c.want = rng.choice(sizes)
                c.got = 0
                c.s.send(HDR.pack(len(req_body), c.want) + req_body)
                busy += 1
            next_burst += rng.expovariate(a.rate)
            continue
        timeout = max(0.0, min(next_burst, end) - now) if now < end else 0.5
        for key, _ in sel.select(timeout):
            c = key.data
            try:
                k = c.s.recv_into(buf)
            except BlockingIOError:
                continue
            if not k:
                raise SystemExit("rpc: server closed a connection")
            c.got += k
            if c.want and c.got >= c.want:
                t = time.monotonic()
                out.append([round((t - c.t0) * 1e6), c.want,
                            round(c.t0 - start, 4)])
                c.want = 0
                busy -= 1
                if a.new_conn:
                    sel.unregister(c.s)
                    c.s.close()
                else:
                    free.append(c)
        if now >= end and time.monotonic() > end + a.drain:
            break
    res = {"rpcs": out, "missed": missed, "unfinished": busy,
           "connections": opened or len(conns),
           "response_bytes": sum(r[1] for r in out),
           "duration": a.duration, "rate": a.rate, "burst": a.burst,
           "sizes": sizes, "request": a.request}
    with open(a.out, "w") as f:
        json.dump(res, f)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("server")
    s.add_argument("--bind", default="0.0.0.0")
    s.add_argument("--port", type=int, default=7000)
    c = sub.add_parser("client")
    c.add_argument("--dst", required=True)
    c.add_argument("--port", type=int, default=7000)
    c.add_argument("--duration", type=float, default=10)
    c.add_argument("--rate", type=float, default=20,
                   help="bursts per second (Poisson)")
    c.add_argument("--burst", type=int, default=6,
                   help="RPCs per burst, uniform 1..N")
    c.add_argument("--sizes", default="256,1024,4096,16384,32768",
                   help="response bytes, drawn uniformly")
    c.add_argument("--request", type=int, default=200)
    c.add_argument("--conns", type=int, default=32,
                   help="connections (--new-conn: at most this many open)")
    c.add_argument("--new-conn", action="store_true",
                   help="a new connection for every RPC")
    c.add_argument("--drain", type=float, default=5,
                   help="seconds to wait for answers after the end")
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--out", required=True)
    a = p.parse_args()
    if a.cmd == "server":
        server(a)
    else:
        client(a)


if __name__ == "__main__":
    main()
