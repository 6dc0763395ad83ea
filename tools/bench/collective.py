#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A training collective's steps over N TCP flows (make bench).

Models the bulk phase of a ring all-reduce: in every step each of the N
flows must move the same number of bytes, and the step ends when the
slowest flow has (the next step waits for it).  The client opens N
connections to the server; per step it starts all N transfers at once
(a barrier), each flow sends --step bytes and waits for the server's
one-byte receipt.  Writes JSON: per step its start and each flow's
completion time, seconds.

For the accuracy phase it also models NCCL over sockets more closely:
--peers P servers (ports PORT..PORT+P-1) with --flows connections each,
every step's bytes written in --chunk pieces, and a compute phase of
--gap-min..--gap-max seconds (log-uniform) between steps.
"""
import argparse
import json
import math
import random
import socket
import threading
import time


def serve_conn(conn):
    buf = bytearray(1 << 16)
    try:
        hdr = conn.recv(8)
        step = int.from_bytes(hdr, "big")
        got = 0
        while True:
            # Up to 64 KB per wake-up, not a segment: under TCG the
            # receiving threads otherwise eat the CPU the traffic needs.
            k = conn.recv_into(buf, min(len(buf), step - got),
                               socket.MSG_WAITALL)
            if not k:
                break
            got += k
            while got >= step:
                got -= step
                conn.sendall(b"!")
    except OSError:
        pass
    conn.close()


def server(a):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((a.bind, a.port))
    ls.listen(64)
    while True:
        conn, _ = ls.accept()
        threading.Thread(target=serve_conn, args=(conn,), daemon=True).start()


def client(a):
    conns = []
    for p in range(a.peers):
        for _ in range(a.flows):
            s = socket.create_connection((a.dst, a.port + p))
            s.sendall(a.step.to_bytes(8, "big"))
            conns.append(s)
    n = len(conns)
    chunk = min(a.chunk or a.step, a.step)
    payload = memoryview(bytes(a.step))
    rng = random.Random(a.seed)
    go = threading.Barrier(n + 1)
    done = threading.Barrier(n + 1)
    times = [0.0] * n
    stop = [False]

    def worker(i):
        s = conns[i]
        while True:
            go.wait()
            if stop[0]:
                return
            for off in range(0, a.step, chunk):
                s.sendall(payload[off:off + chunk])
            if s.recv(1) != b"!":
                raise SystemExit("collective: server closed a connection")
            times[i] = time.monotonic()
            done.wait()

    threads = [threading.Thread(target=worker, args=(i,), daemon=True)
               for i in range(n)]
    for t in threads:
        t.start()
    steps = []
    start = time.monotonic()
    while time.monotonic() - start < a.duration:
        t0 = time.monotonic()
        go.wait()
        done.wait()
        steps.append([round(t0 - start, 6)] +
                     [round(t - t0, 6) for t in times])
        if a.gap_max > 0:
            lo = max(a.gap_min, 1e-4)
            time.sleep(math.exp(rng.uniform(math.log(lo),
                                            math.log(max(a.gap_max, lo)))))
    stop[0] = True
    go.wait()
    elapsed = time.monotonic() - start
    res = {"flows": n, "peers": a.peers, "step_bytes": a.step,
           "chunk": chunk, "elapsed": elapsed, "steps": steps,
           "sent_bytes": n * a.step * len(steps)}
    with open(a.out, "w") as f:
        json.dump(res, f)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("server")
    s.add_argument("--bind", default="0.0.0.0")
    s.add_argument("--port", type=int, default=7100)
    c = sub.add_parser("client")
    c.add_argument("--dst", required=True)
    c.add_argument("--port", type=int, default=7100)
    c.add_argument("--flows", type=int, default=8,
                   help="connections per peer")
    c.add_argument("--peers", type=int, default=1,
                   help="servers on ports PORT..PORT+PEERS-1")
    c.add_argument("--chunk", type=int, default=0,
                   help="write each step in pieces of this many bytes")
    c.add_argument("--gap-min", type=float, default=0,
                   help="shortest compute phase between steps, s")
    c.add_argument("--gap-max", type=float, default=0,
                   help="longest compute phase (0: none), s")
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--step", type=int, default=512 * 1024,
                   help="bytes per flow per step")
    c.add_argument("--duration", type=float, default=20,
                   help="start no step after this many seconds")
    c.add_argument("--out", required=True)
    a = p.parse_args()
    if a.cmd == "server":
        server(a)
    else:
        client(a)


if __name__ == "__main__":
    main()
