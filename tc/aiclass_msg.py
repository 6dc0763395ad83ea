#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write an aiclass qdisc or class dump message for "tc monitor file".

The tc plugin's printer must show what an older module sends (attributes
missing), what a newer one sends (attributes it does not know) and never
misread an attribute of an unexpected size.  The real module sends neither,
so tests build such dumps here and let the real tc print them:

    aiclass_msg.py qdisc [--omit NAME ...] [--old] [--unknown] [--bad-size NAME] [--slo] > F
    tc -s [-j] monitor file F

--old leaves out what the module gained with CoDel, the dscpmap and the
latency SLOs (the options and counters in OLD below), as a module from
before them sends.  --slo adds what a module sends once a band has an SLO
(the qdisc's SLO list, slo_training 1; a class's slo and its counters).

Every option and counter gets a distinct value, printed on stderr with -v.
Attribute numbers come from ../sch_aiclass.h, parsed at run time.
"""
import argparse
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NLA_F_NESTED = 0x8000
RTM_NEWQDISC, RTM_NEWTCLASS = 36, 40
TCA_KIND, TCA_OPTIONS, TCA_STATS2 = 1, 2, 7
TCA_STATS_BASIC, TCA_STATS_QUEUE, TCA_STATS_APP = 1, 3, 4
# What a module from before CoDel, the dscpmap and the SLOs does not send:
# options, qdisc counters, class counters (short names, as --omit takes
# them).
OLD = ("TARGET", "INTERVAL", "ECN", "FORGET", "DSCPMAP", "SPLIT_GSO",
       "CLS_DSCPMAP", "DROP_AQM", "AQM_MARKS", "REMEMBERED", "GSO_SPLIT",
       "SOJOURN_AVG64", "SOJOURN_MAX64", "AQM_DROPS", "SLO_TRAINING",
       "SLO_DOWNGRADES")


def uapi_enums(path):
    """Map every TCA_AICLASS_* enumerator and #define to its value."""
    text = open(path).read()
    names = {}
    for body in re.findall(r"enum\s*\w*\s*{(.*?)}", text, re.S):
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        val = -1
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            if "=" in item:
                item, v = (s.strip() for s in item.split("="))
                val = int(v, 0)
            else:
                val += 1
            names[item] = val
    return names


E = uapi_enums(os.path.join(HERE, "..", "sch_aiclass.h"))


def attr(atype, payload):
    hdr = struct.pack("=HH", 4 + len(payload), atype)
    pad = b"\0" * ((4 - len(payload) % 4) % 4)
    return hdr + payload + pad


def nest(atype, attrs):
    return attr(atype | NLA_F_NESTED, b"".join(attrs))


def scalar(name, fmt, value, args):
    atype = E[name]
    short = re.sub(r"^TCA_AICLASS_(C?STATS_|CLASS_)?", "", name)
    if short in args.omit or name in args.omit:
        return b""
    if short in args.bad_size or name in args.bad_size:
        # one byte short of what the UAPI says: must be skipped, not read
        return attr(atype, struct.pack("=" + fmt, value)[:-1] or b"\1\2\3")
    return attr(atype, struct.pack("=" + fmt, value))


def qdisc_options(args):
    a = []
    a.append(scalar("TCA_AICLASS_LAT_BANDS", "B", 3, args))
    a.append(scalar("TCA_AICLASS_TRAIN_CLASSES", "B", 4, args))
    if "WEIGHTS" not in args.omit:
        a.append(nest(E["TCA_AICLASS_WEIGHTS"],
                      [attr(E["TCA_AICLASS_WEIGHT"], struct.pack("=I", w))
                       for w in (1, 2, 3, 4)]))
    a.append(scalar("TCA_AICLASS_BURST", "I", 65536, args))
    a.append(scalar("TCA_AICLASS_TRAIN_SHARE", "B", 10, args))
    if "THRESHOLDS" not in args.omit:
        a.append(nest(E["TCA_AICLASS_THRESHOLDS"],
                      [attr(E["TCA_AICLASS_THRESHOLD"], struct.pack("=I", t))
                       for t in (10240, 102400)]))
    a.append(scalar("TCA_AICLASS_ELEPHANT", "I", 262144, args))
    a.append(scalar("TCA_AICLASS_IDLE", "I", 1000, args))
    a.append(scalar("TCA_AICLASS_FLOWS", "I", 1024, args))
    a.append(scalar("TCA_AICLASS_LIMIT", "I", 10240, args))
    a.append(scalar("TCA_AICLASS_MEMORY_LIMIT", "I", 32 << 20, args))
    a.append(scalar("TCA_AICLASS_CE_THRESHOLD", "I", 0, args))
    if "PAD" not in args.omit:
        a.append(attr(E["TCA_AICLASS_PAD"], b""))
    a.append(scalar("TCA_AICLASS_RATE", "Q", 0, args))
    a.append(scalar("TCA_AICLASS_ROCE_PORT", "H", 4791, args))
    if "PRIOMAP" not in args.omit:
        a.append(attr(E["TCA_AICLASS_PRIOMAP"],
                      bytes([0] * 14 + [0x1, 0x11])))
    a.append(scalar("TCA_AICLASS_DEFAULT_CLASS", "B", 0x11, args))
    a.append(scalar("TCA_AICLASS_LAT_LIMIT", "I", 1024, args))
    a.append(scalar("TCA_AICLASS_QUANTUM", "I", 1514, args))
    a.append(scalar("TCA_AICLASS_TARGET", "I", 2500, args))
    a.append(scalar("TCA_AICLASS_INTERVAL", "I", 50000, args))
    a.append(scalar("TCA_AICLASS_ECN", "B", 0, args))
    a.append(scalar("TCA_AICLASS_FORGET", "I", 0, args))
    if "DSCPMAP" not in args.omit:
        dscpmap = [0] * 64
        dscpmap[26], dscpmap[46] = 0x11, 0x1
        a.append(attr(E["TCA_AICLASS_DSCPMAP"], bytes(dscpmap)))
    a.append(scalar("TCA_AICLASS_SPLIT_GSO", "B", 1, args))
    if args.slo and "SLOS" not in args.omit:
        a.append(nest(E["TCA_AICLASS_SLOS"],
                      [attr(E["TCA_AICLASS_SLO"], struct.pack("=I", t))
                       for t in (1000, 0, 500)]))
    a.append(scalar("TCA_AICLASS_SLO_TRAINING", "B", int(args.slo), args))
    if args.unknown:
        a.append(attr(E["__TCA_AICLASS_MAX"] + 3, struct.pack("=I", 77)))
    return a


def qdisc_stats(args):
    a = []
    for name, val in sorted(E.items(), key=lambda kv: kv[1]):
        if not name.startswith("TCA_AICLASS_STATS_") or name.endswith(
                ("UNSPEC", "PAD", "_MAX")):
            continue
        fmt = "I" if name.endswith(("ACTIVE_FLOWS", "MEMORY_USED")) else "Q"
        if name.startswith("TCA_AICLASS_STATS_SLO") and not args.slo:
            continue
        a.append(scalar(name, fmt, 1000 + val, args))
    if args.unknown:
        a.append(attr(E["__TCA_AICLASS_STATS_MAX"] + 5,
                      struct.pack("=Q", 99)))
    return nest(E["TCA_AICLASS_XSTATS_QDISC"], a)


def class_options(args):
    a = [scalar("TCA_AICLASS_CLASS_KIND", "B", args.class_kind, args)]
    if args.class_kind == 1:
        a.append(scalar("TCA_AICLASS_CLASS_WEIGHT", "I", 4, args))
    elif args.slo:
        a.append(scalar("TCA_AICLASS_CLASS_SLO", "I", 1000, args))
    return a


def class_stats(args):
    a = [scalar("TCA_AICLASS_CSTATS_KIND", "B", args.class_kind, args)]
    if args.class_kind == 1:
        a.append(scalar("TCA_AICLASS_CSTATS_WEIGHT", "I", 4, args))
        a.append(scalar("TCA_AICLASS_CSTATS_DEFICIT", "i", -300, args))
    a.append(scalar("TCA_AICLASS_CSTATS_ACTIVE_FLOWS", "I", 3, args))
    a.append(scalar("TCA_AICLASS_CSTATS_SOJOURN_AVG", "I", 12500, args))
    a.append(scalar("TCA_AICLASS_CSTATS_SOJOURN_MAX", "I", 2500000, args))
    a.append(scalar("TCA_AICLASS_CSTATS_CE_MARKS", "Q", 7, args))
    a.append(scalar("TCA_AICLASS_CSTATS_SOJOURN_AVG64", "Q", 12500, args))
    a.append(scalar("TCA_AICLASS_CSTATS_SOJOURN_MAX64", "Q", 2500000, args))
    a.append(scalar("TCA_AICLASS_CSTATS_AQM_DROPS", "Q", 8, args))
    a.append(scalar("TCA_AICLASS_CSTATS_AQM_MARKS", "Q", 9, args))
    if args.slo and args.class_kind == 0:
        a.append(scalar("TCA_AICLASS_CSTATS_SLO", "I", 1000, args))
        a.append(scalar("TCA_AICLASS_CSTATS_SLO_MET", "Q", 990, args))
        a.append(scalar("TCA_AICLASS_CSTATS_SLO_MISSED", "Q", 10, args))
        a.append(scalar("TCA_AICLASS_CSTATS_SLO_DOWNGRADES", "Q", 3, args))
        a.append(scalar("TCA_AICLASS_CSTATS_SLO_PROB", "I", 12500, args))
    if args.unknown:
        a.append(attr(E["__TCA_AICLASS_CSTATS_MAX"] + 2,
                      struct.pack("=Q", 99)))
    return nest(E["TCA_AICLASS_XSTATS_CLASS"], a)


def message(args):
    is_class = args.what == "class"
    handle = 0x10011 if is_class else 0x10000
    parent = 0x10000 if is_class else 0xFFFFFFFF
    tcm = struct.pack("=BBHiIII", 0, 0, 0, args.ifindex, handle, parent, 1)
    body = attr(TCA_KIND, b"aiclass\0")
    body += nest(TCA_OPTIONS,
                 class_options(args) if is_class else qdisc_options(args))
    st = [attr(TCA_STATS_BASIC, struct.pack("=QI", 123456, 789) + b"\0" * 4),
          attr(TCA_STATS_QUEUE, struct.pack("=IIIII", 0, 0, 5, 0, 0))]
    if not args.no_app:
        st.append(nest(TCA_STATS_APP,
                       [class_stats(args) if is_class else qdisc_stats(args)]))
    body += nest(TCA_STATS2, st)
    mtype = RTM_NEWTCLASS if is_class else RTM_NEWQDISC
    hdr = struct.pack("=IHHII", 16 + len(tcm) + len(body), mtype, 0, 1, 0)
    return hdr + tcm + body


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=("qdisc", "class"))
    p.add_argument("--omit", action="append", default=[],
                   help="leave out an attribute (short name: LIMIT, "
                        "CLS_AUTO, WEIGHT, ...), as an older module would")
    p.add_argument("--old", action="store_true",
                   help="leave out what the module gained with CoDel and "
                        "the dscpmap, as a module from before them sends")
    p.add_argument("--bad-size", action="append", default=[],
                   help="send an attribute one byte short")
    p.add_argument("--unknown", action="store_true",
                   help="add attributes this UAPI does not know")
    p.add_argument("--no-app", action="store_true",
                   help="no TCA_STATS_APP at all")
    p.add_argument("--slo", action="store_true",
                   help="the SLO options and counters of a module with "
                        "an SLO set")
    p.add_argument("--class-kind", type=int, default=1,
                   help="0 latency, 1 training")
    p.add_argument("--ifindex", type=int, default=1)
    args = p.parse_args()
    if args.old:
        args.omit += OLD
    sys.stdout.buffer.write(message(args))


if __name__ == "__main__":
    main()
