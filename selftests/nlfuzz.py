#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""nlfuzz.py - netlink fuzzer for the aiclass qdisc.

    nlfuzz.py --dev DEV [--seed S] [--count N] [--verbose]

Sends generated and mutated RTM_NEWQDISC (change, replace, replace with a
new handle, delete + create), RTM_NEWTCLASS and RTM_DELTCLASS messages for
the root aiclass qdisc of DEV over a raw NETLINK_ROUTE socket: random
attribute types and lengths, nesting with and without NLA_F_NESTED,
boundary and out-of-range values, truncated payloads, duplicates, bit
flips, interleaved with valid changes.

A model predicts the kernel's verdict for every message: the strict netlink
validation of the nested options (lib/nlattr.c: maxtype, exact lengths,
NLA_F_NESTED, NLA_REJECT, ranges, trailing bytes), rtnetlink's tc request
handling (net/sched/sch_api.c) and aiclass's own checks (aiclass_stage),
and the configuration that results.  After every message the qdisc (and
every few messages the class list) is dumped and compared with the model:
an accepted request must show exactly its effect on the previous
configuration, a rejected one must change nothing, and the verdict must be
the one predicted.  Any difference ends the run with exit status 1 and the
message that caused it, as hex, to replay with the same --seed.

Prints the number of messages, accepted and rejected, and the unique extack
messages of the rejections.  The same --seed and --count send the same
messages (the model only depends on the kernel's answers, which must be
the predicted ones).
"""

import argparse
import errno
import os
import random
import socket
import struct
import sys

# --- constants: linux/netlink.h, linux/rtnetlink.h, pkt_sched.h ---------------
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLM_F_REQUEST = 0x1
NLM_F_MULTI = 0x2
NLM_F_ACK = 0x4
NLM_F_DUMP = 0x300
NLM_F_REPLACE = 0x100
NLM_F_EXCL = 0x200
NLM_F_CREATE = 0x400
NLM_F_ACK_TLVS = 0x200
NLMSGERR_ATTR_MSG = 1
SOL_NETLINK = 270
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11

RTM_NEWQDISC, RTM_DELQDISC, RTM_GETQDISC = 36, 37, 38
RTM_NEWTCLASS, RTM_DELTCLASS, RTM_GETTCLASS = 40, 41, 42
TCA_KIND, TCA_OPTIONS = 1, 2
TC_H_ROOT = 0xFFFFFFFF
NLA_F_NESTED = 0x8000
NLA_F_NET_BYTEORDER = 0x4000
NLA_TYPE_MASK = 0x3FFF

# --- sch_aiclass.h ------------------------------------------------------------
(A_LAT_BANDS, A_TRAIN_CLASSES, A_WEIGHTS, A_WEIGHT, A_BURST, A_TRAIN_SHARE,
 A_THRESHOLDS, A_THRESHOLD, A_ELEPHANT, A_IDLE, A_FLOWS, A_LIMIT,
 A_MEMORY_LIMIT, A_CE_THRESHOLD, A_RATE, A_ROCE_PORT, A_PRIOMAP,
 A_DEFAULT_CLASS, A_LAT_LIMIT, A_QUANTUM, A_PAD, A_TARGET, A_INTERVAL,
 A_ECN, A_FORGET, A_DSCPMAP, A_SPLIT_GSO, A_SLOS, A_SLO,
 A_SLO_TRAINING) = range(1, 31)
A_MAX = A_SLO_TRAINING
MIN_RATE = 64
C_WEIGHT, C_KIND, C_SLO = 1, 2, 3
C_MAX = C_SLO
MIN_SLO, MAX_SLO = 10, 1_000_000
LAT_MIN, TRAIN_MIN = 0x01, 0x11
MAX_LAT, MAX_TRAIN = 8, 16

# Policy of the qdisc options: attribute -> (name, kind, size, lo, hi).
# kind: int (unsigned, exact size), nest, reject, binary (exact length).
POLICY = {
    A_LAT_BANDS: ("lat_bands", "int", 1, 1, MAX_LAT),
    A_TRAIN_CLASSES: ("train_classes", "int", 1, 1, MAX_TRAIN),
    A_WEIGHTS: ("weights", "nest", 0, 0, 0),
    A_WEIGHT: ("weight", "reject", 0, 0, 0),
    A_BURST: ("burst", "int", 4, 1514, 64 << 20),
    A_TRAIN_SHARE: ("train_share", "int", 1, 0, 90),
    A_THRESHOLDS: ("thresholds", "nest", 0, 0, 0),
    A_THRESHOLD: ("threshold", "reject", 0, 0, 0),
    A_ELEPHANT: ("elephant", "int", 4, 1514, 1 << 30),
    A_IDLE: ("idle", "int", 4, 10, 10_000_000),
    A_FLOWS: ("flows", "int", 4, 16, 65536),
    A_LIMIT: ("limit", "int", 4, 16, 1 << 20),
    A_MEMORY_LIMIT: ("memory_limit", "int", 4, 64 << 10, 0x80000000),
    A_CE_THRESHOLD: ("ce_threshold", "int", 4, 0, 10_000_000),
    A_RATE: ("rate", "int", 8, 0, (1 << 64) - 1),
    A_ROCE_PORT: ("roce_port", "int", 2, 0, 65535),
    A_PRIOMAP: ("priomap", "binary", 16, 16, 16),
    A_DEFAULT_CLASS: ("default_class", "int", 1, TRAIN_MIN, TRAIN_MIN + 15),
    A_LAT_LIMIT: ("lat_limit", "int", 4, 1, 1 << 20),
    A_QUANTUM: ("quantum", "int", 4, 256, 1 << 20),
    A_PAD: ("pad", "reject", 0, 0, 0),
    A_TARGET: ("target", "int", 4, 10, 1_000_000),
    A_INTERVAL: ("interval", "int", 4, 100, 10_000_000),
    A_ECN: ("ecn", "int", 1, 0, 1),
    A_FORGET: ("forget", "int", 4, 0, 3_600_000_000),
    A_DSCPMAP: ("dscpmap", "binary", 64, 64, 64),
    A_SPLIT_GSO: ("split_gso", "int", 1, 0, 1),
    A_SLOS: ("slos", "nest", 0, 0, 0),
    A_SLO: ("slo", "reject", 0, 0, 0),
    A_SLO_TRAINING: ("slo_training", "int", 1, 0, 1),
}
MAPS = {A_PRIOMAP: 16, A_DSCPMAP: 64}
# The inner policies of the two lists: one allowed type each.
LIST_POLICY = {
    A_WEIGHTS: (A_WEIGHT, 1, 1000, MAX_TRAIN),
    A_THRESHOLDS: (A_THRESHOLD, 64, 1 << 30, MAX_LAT - 1),
    A_SLOS: (A_SLO, 0, MAX_SLO, MAX_LAT),
}
CLASS_POLICY = {
    C_WEIGHT: ("weight", "int", 4, 1, 1000),
    C_KIND: ("kind", "reject", 0, 0, 0),
    C_SLO: ("slo", "int", 4, 0, MAX_SLO),
}
FMT = {1: "B", 2: "H", 4: "I", 8: "Q"}


class Reject(Exception):
    """The model's prediction: the kernel refuses the request."""


def refuse(why):
    def predict():
        raise Reject(why)
    return predict


# --- attribute encoding ---------------------------------------------------------
def align4(n):
    return (n + 3) & ~3


def nla(atype, payload):
    return struct.pack("=HH", 4 + len(payload), atype) + payload + \
        b"\0" * (align4(len(payload)) - len(payload))


def nla_int(atype, size, value):
    return nla(atype, struct.pack("=" + FMT[size], value))


def nla_iter(buf):
    """Attributes as the kernel walks them (nla_ok/nla_next): a list of
    (type with flags, payload) and the count of trailing bytes."""
    out, off, rem = [], 0, len(buf)
    while rem >= 4:
        length, atype = struct.unpack_from("=HH", buf, off)
        if length < 4 or length > rem:
            break
        out.append((atype, buf[off + 4:off + length]))
        off += align4(length)
        rem -= align4(length)
    return out, max(rem, 0)


# --- the model: validation --------------------------------------------------------
def validate(buf, policy, maxtype):
    """Strict validation of the attributes in buf (NL_VALIDATE_STRICT).
    Returns {type: payload}, last occurrence winning, or raises Reject."""
    attrs, trailing = nla_iter(buf)
    tb = {}
    for raw, data in attrs:
        t = raw & NLA_TYPE_MASK
        if t == 0 or t > maxtype:
            raise Reject("unknown type %d" % t)
        if t not in policy:
            raise Reject("unsupported %d" % t)
        _, kind, size, lo, hi = policy[t]
        if kind == "int" and len(data) != size:
            raise Reject("length")
        if kind == "nest" and not raw & NLA_F_NESTED:
            raise Reject("NLA_F_NESTED missing")
        if kind != "nest" and raw & NLA_F_NESTED:
            raise Reject("NLA_F_NESTED not expected")
        if kind == "reject":
            raise Reject("reject")
        if kind == "nest" and 0 < len(data) < 4:
            raise Reject("short nest")
        if kind == "int":
            v = struct.unpack("=" + FMT[size], data)[0]
            if not lo <= v <= hi:
                raise Reject("range")
        if kind == "binary" and not lo <= len(data) <= hi:
            raise Reject("binary length")
        tb[t] = data
    if trailing:
        raise Reject("trailing")
    return tb


def parse_list(data, nest_type):
    inner, lo, hi, most = LIST_POLICY[nest_type]
    pol = {inner: ("v", "int", 4, lo, hi)}
    attrs, _ = nla_iter(data)
    validate(data, pol, A_MAX)
    vals = [struct.unpack("=I", d)[0] for _, d in attrs]
    if len(vals) > most:
        raise Reject("too many")
    return vals


def u(data):
    return struct.unpack("=" + FMT[len(data)], data)[0]


def minor_to_idx(cfg, minor):
    """Index into lat (0..7) / train (8..23) or None, as the module."""
    if LAT_MIN <= minor < LAT_MIN + cfg["lat_bands"]:
        return minor - LAT_MIN
    if TRAIN_MIN <= minor < TRAIN_MIN + cfg["train_classes"]:
        return MAX_LAT + minor - TRAIN_MIN
    return None


def stage(cfg, opts):
    """aiclass_stage(): opts (raw TCA_OPTIONS payload, NLA_F_NESTED already
    checked) applied to a copy of cfg; raises Reject."""
    tb = validate(opts, POLICY, A_MAX)
    c = dict(cfg)
    c["weights"] = list(cfg["weights"])
    c["thresholds"] = list(cfg["thresholds"])
    c["slos"] = list(cfg["slos"])
    derive = False
    if A_LAT_BANDS in tb:
        n = u(tb[A_LAT_BANDS])
        derive |= n != c["lat_bands"]
        c["lat_bands"] = n
    if A_TRAIN_CLASSES in tb:
        c["train_classes"] = u(tb[A_TRAIN_CLASSES])
    if A_ELEPHANT in tb:
        n = u(tb[A_ELEPHANT])
        derive |= n != c["elephant"]
        c["elephant"] = n
    if A_WEIGHTS in tb:
        vals = parse_list(tb[A_WEIGHTS], A_WEIGHTS)
        if not vals or len(vals) > c["train_classes"]:
            raise Reject("weights count")
        c["weights"][:len(vals)] = vals
    if A_THRESHOLDS in tb:
        vals = parse_list(tb[A_THRESHOLDS], A_THRESHOLDS)
        if len(vals) != c["lat_bands"] - 1:
            raise Reject("thresholds count")
        c["thresholds"][:len(vals)] = vals
    elif derive:
        n = c["lat_bands"] - 1
        for i in range(n):
            c["thresholds"][i] = c["elephant"] >> (n - i)
    if A_SLOS in tb:
        vals = parse_list(tb[A_SLOS], A_SLOS)
        if not vals or len(vals) > c["lat_bands"]:
            raise Reject("slos count")
        if any(0 < v < MIN_SLO for v in vals):
            raise Reject("slo below the minimum")
        c["slos"][:len(vals)] = vals
    th = c["thresholds"]
    for i in range(c["lat_bands"] - 1):
        if th[i] < 64 or (i and th[i] <= th[i - 1]) or th[i] >= c["elephant"]:
            raise Reject("thresholds order")
    for t in (A_BURST, A_TRAIN_SHARE, A_IDLE, A_FORGET, A_FLOWS, A_LIMIT,
              A_MEMORY_LIMIT, A_CE_THRESHOLD, A_RATE, A_ROCE_PORT,
              A_LAT_LIMIT, A_QUANTUM, A_TARGET, A_INTERVAL, A_ECN,
              A_SPLIT_GSO, A_SLO_TRAINING, A_DEFAULT_CLASS):
        if t in tb:
            v = u(tb[t])
            if t == A_FLOWS and v & (v - 1):
                raise Reject("flows power of two")
            if t == A_RATE and 0 < v < MIN_RATE:
                raise Reject("rate below the minimum")
            c[POLICY[t][0]] = v
    if c["target"] >= c["interval"]:
        raise Reject("target not below interval")
    idx = minor_to_idx(c, c["default_class"])
    if idx is None:
        raise Reject("default_class")
    for t in MAPS:
        name = POLICY[t][0]
        if t in tb:
            c[name] = bytes(tb[t])
    for t in MAPS:
        for m in c[POLICY[t][0]]:
            if m and minor_to_idx(c, m) is None:
                raise Reject(POLICY[t][0])
    return c


def defaults(quantum):
    c = dict(lat_bands=3, train_classes=4, weights=[1] * MAX_TRAIN,
             burst=64 << 10, train_share=10, elephant=256 << 10,
             thresholds=[0] * (MAX_LAT - 1), idle=10000, flows=1024,
             limit=10240, memory_limit=32 << 20, ce_threshold=0, rate=0,
             roce_port=4791, priomap=bytes(16), default_class=TRAIN_MIN,
             lat_limit=1024, quantum=quantum, target=5000, interval=100_000,
             ecn=1, forget=10_000_000, dscpmap=bytes(64), split_gso=1,
             slos=[0] * MAX_LAT, slo_training=0)
    n = c["lat_bands"] - 1
    for i in range(n):
        c["thresholds"][i] = c["elephant"] >> (n - i)
    return c


def visible(cfg):
    """What a dump shows of a model configuration."""
    if cfg is None:
        return None
    c = dict(cfg)
    c["weights"] = cfg["weights"][:cfg["train_classes"]]
    c["thresholds"] = cfg["thresholds"][:cfg["lat_bands"] - 1]
    c["slos"] = cfg["slos"][:cfg["lat_bands"]]
    if not any(c["slos"]):	# dumped only when a band has one
        del c["slos"]
    return c


def class_list(cfg):
    if cfg is None:
        return []
    out = [(LAT_MIN + i, None) for i in range(cfg["lat_bands"])]
    out += [(TRAIN_MIN + i, cfg["weights"][i])
            for i in range(cfg["train_classes"])]
    return out


# --- netlink -------------------------------------------------------------------
class Rtnl:
    def __init__(self):
        self.sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                socket.NETLINK_ROUTE)
        self.sk.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sk.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.sk.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.sk.bind((0, 0))
        self.seq = 1

    def send(self, mtype, flags, body):
        self.seq += 1
        hdr = struct.pack("=IHHII", 16 + len(body), mtype, flags, self.seq, 0)
        self.sk.send(hdr + body)
        return self.seq

    def messages(self):
        data = self.sk.recv(1 << 20)
        off = 0
        while off + 16 <= len(data):
            length, mtype, flags, seq, _ = struct.unpack_from("=IHHII", data, off)
            if length < 16:
                break
            yield mtype, flags, seq, data[off + 16:off + length]
            off += align4(length)

    def request(self, mtype, flags, body):
        """Returns (errno, extack message or None)."""
        seq = self.send(mtype, flags | NLM_F_REQUEST | NLM_F_ACK, body)
        while True:
            for t, fl, s, payload in self.messages():
                if s != seq or t != NLMSG_ERROR:
                    continue
                err = -struct.unpack_from("=i", payload)[0]
                msg = None
                if fl & NLM_F_ACK_TLVS:
                    attrs, _ = nla_iter(payload[4 + 16:])
                    for at, ad in attrs:
                        if at & NLA_TYPE_MASK == NLMSGERR_ATTR_MSG:
                            msg = ad.rstrip(b"\0").decode(errors="replace")
                return err, msg

    def dump(self, mtype, body):
        seq = self.send(mtype, NLM_F_REQUEST | NLM_F_DUMP, body)
        out = []
        while True:
            for t, _, s, payload in self.messages():
                if s != seq:
                    continue
                if t == NLMSG_DONE:
                    return out
                if t == NLMSG_ERROR:
                    raise OSError(-struct.unpack_from("=i", payload)[0], "dump")
                out.append(payload)


def tcmsg(ifindex, handle, parent):
    return struct.pack("=BxxxiIII", 0, ifindex, handle, parent, 0)


def parse_qdisc_opts(data):
    attrs, _ = nla_iter(data)
    c = {}
    for t, d in attrs:
        t &= NLA_TYPE_MASK
        if t in (A_WEIGHTS, A_THRESHOLDS, A_SLOS):
            c[POLICY[t][0]] = [u(x) for _, x in nla_iter(d)[0]]
        elif t in MAPS:
            c[POLICY[t][0]] = bytes(d)
        elif t in POLICY and t != A_PAD:
            c[POLICY[t][0]] = u(d)
    return c


def dump_qdisc(nl, ifindex):
    """(handle, config) of the root aiclass of ifindex, or (None, None)."""
    for m in nl.dump(RTM_GETQDISC, tcmsg(0, 0, 0)):
        _, idx, handle, parent, _ = struct.unpack_from("=BxxxiIII", m)
        if idx != ifindex or parent != TC_H_ROOT:
            continue
        attrs, _ = nla_iter(m[20:])
        kind = opts = None
        for t, d in attrs:
            if t & NLA_TYPE_MASK == TCA_KIND:
                kind = d.rstrip(b"\0")
            elif t & NLA_TYPE_MASK == TCA_OPTIONS:
                opts = d
        if kind == b"aiclass":
            return handle, parse_qdisc_opts(opts)
    return None, None


def dump_classes(nl, ifindex, handle):
    out = []
    for m in nl.dump(RTM_GETTCLASS, tcmsg(ifindex, 0, 0)):
        _, idx, clid, _, _ = struct.unpack_from("=BxxxiIII", m)
        if idx != ifindex or clid >> 16 != handle >> 16:
            continue
        weight = None
        for t, d in nla_iter(m[20:])[0]:
            if t & NLA_TYPE_MASK == TCA_OPTIONS:
                for ct, cd in nla_iter(d)[0]:
                    if ct & NLA_TYPE_MASK == C_WEIGHT:
                        weight = u(cd)
        out.append((clid & 0xFFFF, weight))
    return sorted(out)


# --- generators ----------------------------------------------------------------
class Gen:
    def __init__(self, rnd):
        self.r = rnd

    def boundary(self, lo, hi, size):
        r = self.r
        top = (1 << (8 * size)) - 1
        cands = [lo, hi, lo - 1, hi + 1, 0, 1, top, top - 1, 1 << (8 * size - 1),
                 r.randint(lo, hi), r.randint(0, top)]
        return min(max(r.choice(cands), 0), top)

    def valid_value(self, t, cfg):
        r = self.r
        _, _, size, lo, hi = POLICY[t]
        if t == A_FLOWS:
            return 1 << r.choice([4, 5, 6, 8, 10, 10, 12, 16])
        if t == A_RATE:
            return r.choice([0, 0, 0, 125_000, 1_250_000, 12_500_000,
                             r.randint(10_000, 10 ** 10)])
        if t == A_TARGET:
            return r.randint(lo, min(hi, cfg["interval"] - 1))
        if t == A_INTERVAL:
            return r.randint(max(lo, cfg["target"] + 1), hi)
        if t == A_DEFAULT_CLASS:
            return TRAIN_MIN + r.randrange(cfg["train_classes"])
        if t == A_ELEPHANT:
            return r.choice([256 << 10, 1 << 20, r.randint(lo, hi)])
        if t == A_LIMIT:
            return r.choice([16, 100, 1000, 10240, r.randint(lo, 1 << 17)])
        if t == A_MEMORY_LIMIT:
            return r.choice([64 << 10, 1 << 20, 32 << 20, r.randint(lo, 1 << 28)])
        if t == A_QUANTUM:
            return r.choice([256, 1514, 3000, r.randint(lo, hi)])
        return r.randint(lo, hi)

    def valid_opts(self, cfg):
        """1 to 4 options that are plausibly accepted given cfg."""
        r = self.r
        out = b""
        lb, tc = cfg["lat_bands"], cfg["train_classes"]
        el = cfg["elephant"]
        for t in r.sample(sorted(POLICY), r.randint(1, 4)):
            kind = POLICY[t][1]
            if kind == "reject":
                continue
            if t == A_LAT_BANDS:
                lb = r.randint(1, MAX_LAT)
                out += nla_int(t, 1, lb)
                # thresholds that fit, so the change is not refused
                n = lb - 1
                if n:
                    el = max(el, 64 << n)
                    out += nla_int(A_ELEPHANT, 4, el)
                    th = sorted(r.sample(range(64, el), n))
                    out += nla(A_THRESHOLDS | NLA_F_NESTED,
                               b"".join(nla_int(A_THRESHOLD, 4, v) for v in th))
            elif t == A_TRAIN_CLASSES:
                tc = r.randint(1, MAX_TRAIN)
                out += nla_int(t, 1, tc)
                out += nla_int(A_DEFAULT_CLASS, 1, TRAIN_MIN + r.randrange(tc))
                out += nla(A_PRIOMAP, bytes(16))
                out += nla(A_DSCPMAP, bytes(64))
            elif t == A_WEIGHTS:
                n = r.randint(1, tc)
                out += nla(t | NLA_F_NESTED, b"".join(
                    nla_int(A_WEIGHT, 4, r.randint(1, 1000)) for _ in range(n)))
            elif t == A_THRESHOLDS:
                n = lb - 1
                th = sorted(r.sample(range(64, el), n)) if n and el > 64 + n else []
                out += nla(t | NLA_F_NESTED,
                           b"".join(nla_int(A_THRESHOLD, 4, v) for v in th))
            elif t == A_SLOS:
                out += nla(t | NLA_F_NESTED, b"".join(
                    nla_int(A_SLO, 4, r.choice([0, 0, MIN_SLO, 1000, MAX_SLO,
                                                r.randint(MIN_SLO, MAX_SLO)]))
                    for _ in range(r.randint(1, lb))))
            elif t in MAPS:
                live = [0] * 4 + [LAT_MIN + i for i in range(lb)] + \
                    [TRAIN_MIN + i for i in range(tc)]
                out += nla(t, bytes(r.choice(live) for _ in range(MAPS[t])))
            elif t == A_DEFAULT_CLASS:
                out += nla_int(t, 1, TRAIN_MIN + r.randrange(tc))
            elif t == A_ELEPHANT:
                continue    # moves the derived thresholds: random_opts does it
            else:
                out += nla_int(t, POLICY[t][2], self.valid_value(t, cfg))
        return out

    def random_attr(self, depth=0):
        r = self.r
        t = r.choice([r.randint(0, 24), r.randint(0, 24),
                      r.choice(sorted(POLICY)), r.randint(0, 0x3FFF)])
        flags = r.choice([0, 0, 0, NLA_F_NESTED, NLA_F_NET_BYTEORDER])
        if t in (A_WEIGHTS, A_THRESHOLDS, A_SLOS) and r.random() < 0.7:
            flags = NLA_F_NESTED if r.random() < 0.85 else 0
            inner = LIST_POLICY[t][0]
            lo, hi = LIST_POLICY[t][1], LIST_POLICY[t][2]
            kids = b""
            for _ in range(r.choice([0, 1, 2, 3, 7, 8, 16, 17])):
                if r.random() < 0.9:
                    kids += nla_int(inner, 4, self.boundary(lo, hi, 4)
                                    if r.random() < 0.3 else r.randint(lo, min(hi, 1 << 20)))
                elif depth < 3:
                    kids += self.random_attr(depth + 1)
            return nla(t | flags, kids)
        if t in POLICY and POLICY[t][1] == "int" and r.random() < 0.8:
            _, _, size, lo, hi = POLICY[t]
            if r.random() < 0.2:
                size = r.choice([0, 1, 2, 3, 4, 8, 5])
                return nla(t | flags, bytes(r.getrandbits(8) for _ in range(size)))
            return nla(t | flags, struct.pack("=" + FMT[size], self.boundary(lo, hi, size)))
        if t in MAPS and r.random() < 0.7:
            n = MAPS[t]
            n = r.choice([n, n, n - 1, n + 1, 0, 2 * n])
            pool = [0, 1, 2, 3, 8, 9, 0x11, 0x12, 0x14, 0x20, 0x21, 0xff]
            return nla(t | flags, bytes(r.choice(pool) for _ in range(n)))
        if depth < 3 and r.random() < 0.15:
            return nla(t | NLA_F_NESTED, b"".join(
                self.random_attr(depth + 1) for _ in range(r.randint(0, 3))))
        n = r.choice([0, 1, 2, 4, 8, 16, r.randint(0, 40)])
        return nla(t | flags, bytes(r.getrandbits(8) for _ in range(n)))

    def inconsistent_opts(self, cfg):
        """Every value within its policy, the whole possibly not: the
        checks of aiclass_stage() rather than of the policy."""
        r = self.r
        lb, tc = cfg["lat_bands"], cfg["train_classes"]
        v = r.randrange(13)
        if v == 0:      # flows in range, not a power of two
            return nla_int(A_FLOWS, 4, r.choice([17, 1000, 1025, 65535, 3 << 10]))
        if v == 1:      # thresholds: wrong count, not rising, above elephant
            n = r.choice([lb - 1, lb, max(lb - 2, 0), 7])
            th = [r.choice([64, 100, 4096, 1 << 20, 1 << 30]) for _ in range(n)]
            return nla(A_THRESHOLDS | NLA_F_NESTED,
                       b"".join(nla_int(A_THRESHOLD, 4, x) for x in th))
        if v == 2:      # bands up, elephant down: derived thresholds < 64
            return nla_int(A_LAT_BANDS, 1, r.randint(1, 8)) + \
                nla_int(A_ELEPHANT, 4, r.choice([1514, 4096, 8192, 9000]))
        if v == 3:      # fewer training classes than the default class needs
            return nla_int(A_TRAIN_CLASSES, 1, r.randint(1, 16))
        if v == 4:      # default class beyond train_classes
            return nla_int(A_DEFAULT_CLASS, 1, r.randint(TRAIN_MIN, TRAIN_MIN + 15))
        if v == 5:      # priomap naming dead classes
            pool = [0, LAT_MIN + lb, TRAIN_MIN + tc, 0x09, 0x10, 0x21, 0xff] + \
                [LAT_MIN + i for i in range(lb)]
            return nla(A_PRIOMAP, bytes(r.choice(pool) for _ in range(16)))
        if v == 6:      # too many or no weights, fewer bands than priomap uses
            n = r.choice([0, tc + 1, 16, 17])
            return nla(A_WEIGHTS | NLA_F_NESTED, b"".join(
                nla_int(A_WEIGHT, 4, 1) for _ in range(n)))
        if v == 7:      # shrink the bands while the priomap points into them
            return nla_int(A_LAT_BANDS, 1, r.randint(1, lb))
        if v == 8:      # a dscpmap naming dead classes
            pool = [0, LAT_MIN + lb, TRAIN_MIN + tc, 0x09, 0x21] + \
                [LAT_MIN + i for i in range(lb)]
            return nla(A_DSCPMAP, bytes(r.choice(pool) for _ in range(64)))
        if v == 9:      # target at or above interval
            t = r.randint(100, 1_000_000)
            return nla_int(A_TARGET, 4, t) + \
                nla_int(A_INTERVAL, 4, r.randint(100, t))
        if v == 10:     # a rate below the minimum, not off
            return nla_int(A_RATE, 8, r.randint(1, MIN_RATE - 1))
        if v == 11:     # SLOs: more than lat_bands, none, or below 10us
            n = r.choice([lb + 1, 0, 1])
            return nla(A_SLOS | NLA_F_NESTED, b"".join(
                nla_int(A_SLO, 4, r.choice([1, 9, 10, 0]))
                for _ in range(n)))
        return nla(A_WEIGHTS | NLA_F_NESTED, nla_int(A_THRESHOLD, 4, 100))

    def random_opts(self, cfg):
        r = self.r
        if r.random() < 0.35:
            return self.inconsistent_opts(cfg) + \
                (self.valid_opts(cfg) if r.random() < 0.3 else b"")
        parts = [self.random_attr() for _ in range(r.randint(0, 4))]
        if r.random() < 0.5:
            parts.append(self.valid_opts(cfg))
        r.shuffle(parts)
        return b"".join(parts)

    def mutate(self, buf):
        r = self.r
        b = bytearray(buf)
        for _ in range(r.randint(1, 3)):
            op = r.randrange(7)
            if op == 0 and b:                       # bit flip
                i = r.randrange(len(b))
                b[i] ^= 1 << r.randrange(8)
            elif op == 1 and b:                     # truncate
                del b[r.randrange(len(b)):]
            elif op == 2 and len(b) >= 4:           # a length field
                i = r.randrange(0, len(b) - 3, 4) if len(b) > 4 else 0
                struct.pack_into("=H", b, i, r.choice([0, 3, 4, 5, 8, 255, 0xFFFF,
                                                      r.randrange(64)]))
            elif op == 3 and len(b) >= 4:           # a type field, flags
                i = r.randrange(0, len(b) - 3, 4) if len(b) > 4 else 0
                t = struct.unpack_from("=H", b, i + 2)[0]
                struct.pack_into("=H", b, i + 2, r.choice(
                    [t ^ NLA_F_NESTED, t ^ NLA_F_NET_BYTEORDER, r.randint(0, 24),
                     (t + 1) & 0xFFFF, (t - 1) & 0xFFFF]))
            elif op == 4:                           # junk at the end
                b += bytes(r.getrandbits(8) for _ in range(r.randint(1, 7)))
            elif op == 5 and b:                     # duplicate the front
                b += b[:align4(min(len(b), r.randint(4, 24)))]
            else:                                   # a random attribute in
                b += self.random_attr()
        return bytes(b)


# --- the fuzzer -------------------------------------------------------------------
class Fuzzer:
    def __init__(self, args):
        self.args = args
        self.r = random.Random(args.seed)
        self.g = Gen(self.r)
        self.nl = Rtnl()
        self.ifindex = socket.if_nametoindex(args.dev)
        self.n = self.accepted = self.rejected = 0
        self.reasons = {}
        self.silent = {}     # rejections without extack: errno -> count
        self.handle = 1 << 16
        self.cfg = None
        self.quantum = None
        self.kinds = {}

    def log(self, *a):
        if self.args.verbose:
            print(*a, flush=True)

    def qdisc_body(self, handle, opts, kind=b"aiclass\0", opts_flags=NLA_F_NESTED):
        body = tcmsg(self.ifindex, handle, TC_H_ROOT)
        if kind is not None:
            body += nla(TCA_KIND, kind)
        if opts is not None:
            body += nla(TCA_OPTIONS | opts_flags, opts)
        return body

    def setup(self):
        self.nl.request(RTM_DELQDISC, 0, tcmsg(self.ifindex, 0, TC_H_ROOT))
        err, msg = self.nl.request(RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL,
                                   self.qdisc_body(self.handle, b""))
        if err:
            sys.exit("nlfuzz: cannot create aiclass on %s: %s %s" %
                     (self.args.dev, os.strerror(err), msg or ""))
        handle, got = dump_qdisc(self.nl, self.ifindex)
        self.quantum = got["quantum"]
        self.cfg = defaults(self.quantum)
        self.check(b"setup")

    def check(self, what, classes=False):
        handle, got = dump_qdisc(self.nl, self.ifindex)
        want = visible(self.cfg)
        if self.cfg is not None and handle != self.handle:
            self.fail(what, "handle %x, expected %x" % (handle or 0, self.handle))
        if got != want:
            diff = {k: (got.get(k) if got else None, want.get(k) if want else None)
                    for k in set(got or {}) | set(want or {})
                    if (got or {}).get(k) != (want or {}).get(k)}
            self.fail(what, "dumped configuration differs (dumped, model): %s" % diff)
        if classes and self.cfg is not None:
            cl = dump_classes(self.nl, self.ifindex, self.handle)
            if cl != class_list(self.cfg):
                self.fail(what, "classes %s, model %s" % (cl, class_list(self.cfg)))

    def fail(self, what, why):
        print("nlfuzz: FAIL at message %d (seed %d): %s" % (self.n, self.args.seed, why))
        if isinstance(what, bytes):
            print("nlfuzz: message: %s" % what.hex())
        else:
            print("nlfuzz: message: %s" % (what,))
        sys.exit(1)

    def send(self, kind, mtype, flags, body, predict):
        """predict() returns the new model config or raises Reject."""
        self.n += 1
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        try:
            want, ok = predict(), True
        except Reject as e:
            want, ok, why = None, False, str(e)
        err, msg = self.nl.request(mtype, flags, body)
        desc = "%s %s" % (kind, body.hex())
        self.log("#%d %s -> %s %s" % (self.n, kind, err and errno.errorcode.get(err, err), msg or ""))
        if err == 0:
            self.accepted += 1
            if not ok:
                self.fail(desc, "accepted, the model predicted a refusal (%s)" % why)
            self.cfg = want
        else:
            self.rejected += 1
            if ok:
                self.fail(desc, "refused with %s \"%s\", the model predicted success" %
                          (errno.errorcode.get(err, err), msg))
            if msg:
                self.reasons[msg] = self.reasons.get(msg, 0) + 1
            else:
                key = "%s: %s" % (kind, errno.errorcode.get(err, err))
                self.silent[key] = self.silent.get(key, 0) + 1
        self.check(desc, classes=self.n % 16 == 0)
        return err == 0

    # qdisc requests --------------------------------------------------------------
    def change_predict(self, opts, opts_flags=NLA_F_NESTED, kind_ok=True):
        def predict():
            if self.cfg is None:
                raise Reject("no qdisc")
            if not kind_ok:
                raise Reject("kind")
            if opts is None:
                return self.cfg      # qdisc_change() without TCA_OPTIONS
            if not opts_flags & NLA_F_NESTED:
                raise Reject("NLA_F_NESTED missing")
            return stage(self.cfg, opts)
        return predict

    def create_predict(self, opts):
        def predict():
            base = defaults(self.quantum)
            if opts is None:
                return base
            return stage(base, opts)
        return predict

    def pick_opts(self):
        r = self.r
        cfg = self.cfg or defaults(self.quantum)
        x = r.random()
        if x < 0.45:
            return self.g.valid_opts(cfg)
        if x < 0.75:
            return self.g.random_opts(cfg)
        return self.g.mutate(self.g.valid_opts(cfg))

    def step(self):
        r = self.r
        x = r.random()
        if self.cfg is None:
            opts = self.pick_opts()
            self.handle = r.choice([1, 2, 0x10]) << 16
            self.send("create", RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL,
                      self.qdisc_body(self.handle, opts), self.create_predict(opts))
            return
        if x < 0.55:
            opts = self.pick_opts()
            self.send("change", RTM_NEWQDISC, 0,
                      self.qdisc_body(r.choice([0, self.handle]), opts),
                      self.change_predict(opts))
        elif x < 0.62:
            opts = self.pick_opts()
            self.send("replace", RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE,
                      self.qdisc_body(self.handle, opts), self.change_predict(opts))
        elif x < 0.66:
            # a different handle: a new qdisc replaces the old one (init)
            opts = self.pick_opts()
            new = ((self.handle >> 16) % 3 + 1) << 16
            old = self.handle

            def predict():
                c = self.create_predict(opts)()
                self.handle = new
                return c
            if not self.send("replace-new", RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE,
                             self.qdisc_body(new, opts), predict):
                self.handle = old
        elif x < 0.68:
            err, msg = self.nl.request(RTM_DELQDISC, 0, tcmsg(self.ifindex, 0, TC_H_ROOT))
            self.n += 1
            if err:
                self.fail("delete", "delete refused: %s %s" % (err, msg))
            self.cfg = None
            self.check("delete")
        elif x < 0.76:
            # odd requests: no options, options not nested, wrong kind,
            # truncated options (the outer parse is lenient: no options)
            v = r.randrange(4)
            opts = self.g.valid_opts(self.cfg)
            if v == 0:
                self.send("change-noopts", RTM_NEWQDISC, 0,
                          self.qdisc_body(self.handle, None), self.change_predict(None))
            elif v == 1:
                self.send("change-flat", RTM_NEWQDISC, 0,
                          self.qdisc_body(self.handle, opts, opts_flags=0),
                          self.change_predict(opts, opts_flags=0))
            elif v == 2:
                kind = r.choice([b"aiclasx\0", b"aiclass", b"pfifo\0", b"\0", b"aiclass\0\0"])
                ok = kind.rstrip(b"\0") == b"aiclass"
                self.send("change-kind", RTM_NEWQDISC, 0,
                          self.qdisc_body(self.handle, opts, kind=kind),
                          self.change_predict(opts, kind_ok=ok))
            else:
                body = self.qdisc_body(self.handle, opts)
                cut = r.randint(1, max(1, len(opts) - 1))
                self.send("change-truncated", RTM_NEWQDISC, 0, body[:-cut],
                          self.change_predict(None))
        elif x < 0.94:
            self.class_change()
        else:
            minor = r.choice([1, 2, 8, 9, 0x11, 0x12, 0x20, 0x21, 0])
            self.send("class-delete", RTM_DELTCLASS, 0,
                      tcmsg(self.ifindex, self.handle | minor, 0),
                      refuse("classes are fixed"))

    def class_change(self):
        r = self.r
        cfg = self.cfg
        live = [m for m, _ in class_list(cfg)]
        minor = r.choice(live + live + [0, 9, 0x10, 0x20, 0x21, 0xFFFF])
        y = r.random()
        if y < 0.35:
            opts = nla_int(C_WEIGHT, 4, r.randint(1, 1000))
        elif y < 0.5:
            opts = nla_int(C_SLO, 4, r.choice([0, 1, 9, MIN_SLO, 5000,
                                               MAX_SLO, MAX_SLO + 1]))
            if r.random() < 0.3:
                opts += nla_int(C_WEIGHT, 4, r.randint(1, 1000))
        elif y < 0.8:
            opts = nla_int(C_WEIGHT, 4, self.g.boundary(1, 1000, 4))
        else:
            opts = self.g.mutate(nla_int(C_WEIGHT, 4, 5)) if r.random() < 0.5 else \
                b"".join(self.g.random_attr() for _ in range(r.randint(0, 2)))
        flags = r.choice([0, 0, 0, NLM_F_CREATE, NLM_F_EXCL])
        nested = r.random() < 0.9
        with_opts = r.random() < 0.95
        body = tcmsg(self.ifindex, self.handle | minor, r.choice([0, self.handle]))
        if with_opts:
            body += nla(TCA_OPTIONS | (NLA_F_NESTED if nested else 0), opts)

        def predict():
            idx = minor_to_idx(cfg, minor) if minor else None
            if idx is None:
                raise Reject("no such class")
            if flags & NLM_F_EXCL:
                raise Reject("exists")
            if not with_opts:
                raise Reject("options required")
            if not nested:
                raise Reject("NLA_F_NESTED missing")
            tb = validate(opts, CLASS_POLICY, C_MAX)
            if C_WEIGHT in tb and idx < MAX_LAT:
                raise Reject("latency band weight")
            if C_SLO in tb and (idx >= MAX_LAT or
                                0 < u(tb[C_SLO]) < MIN_SLO):
                raise Reject("slo")
            c = dict(cfg)
            c["weights"] = list(cfg["weights"])
            c["slos"] = list(cfg["slos"])
            if C_WEIGHT in tb:
                c["weights"][idx - MAX_LAT] = u(tb[C_WEIGHT])
            if C_SLO in tb:
                c["slos"][idx] = u(tb[C_SLO])
            return c
        self.send("class-change", RTM_NEWTCLASS, flags, body, predict)

    def run(self):
        self.setup()
        while self.n < self.args.count:
            self.step()
        if self.cfg is None:       # leave a qdisc behind, as found
            while self.cfg is None:
                opts = self.g.valid_opts(defaults(self.quantum))
                self.handle = 1 << 16
                self.send("create", RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL,
                          self.qdisc_body(self.handle, opts), self.create_predict(opts))
        self.check("end", classes=True)
        print("nlfuzz: seed %d: %d messages, %d accepted, %d refused, "
              "%d unique extack messages" % (self.args.seed, self.n, self.accepted,
                                              self.rejected, len(self.reasons)))
        print("nlfuzz: by kind: " + ", ".join("%s %d" % kv for kv in sorted(self.kinds.items())))
        for m, c in sorted(self.reasons.items(), key=lambda kv: -kv[1]):
            print("nlfuzz:   %6d  %s" % (c, m))
        for m, c in sorted(self.silent.items(), key=lambda kv: -kv[1]):
            print("nlfuzz:   %6d  (no extack) %s" % (c, m))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dev", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    Fuzzer(args).run()


if __name__ == "__main__":
    main()
