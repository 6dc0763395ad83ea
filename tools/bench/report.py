#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn make bench's raw measurements into the results folder.

usage: report.py RAW_DIR OUT_DIR
       report.py --slo-point DIR PCT WARM WIN TARGET_MS   (one line, for the log)

Writes OUT_DIR/bench.md (tables and the aiclass targets, met or not),
bench.csv (one row per contender), bench.json (everything, with the
conditions), perf_aiclass*.txt (the profiles) and, when gnuplot is there,
rpc_cdf.png, goodput.png, pps.png and slo.png.  Prints bench.md.
"""
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

MAIN = ["pfifo_fast", "fq_codel", "cake", "cake_diffserv4", "ets",
        "ets_fq_codel", "ets_fq_codel_hints", "prio",
        "fq", "fq_hints", "aiclass", "aiclass_hints", "aiclass_rate"]
COST = ["pfifo", "fq_codel", "ets", "cake", "fq", "aiclass", "aiclass_codel"]
SMALL = 1024            # responses up to this many bytes: "small" RPCs
FLOWS = [16, 1000, 10000]
PEERS = ["fq_codel", "cake", "cake_diffserv4", "fq", "ets_fq_codel"]


def load(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def pct(sorted_vals, p):
    """Nearest-rank percentile."""
    if not sorted_vals:
        return None
    k = max(0, min(len(sorted_vals) - 1,
                   math.ceil(p / 100 * len(sorted_vals)) - 1))
    return sorted_vals[k]


def lat_stats(res):
    if not res:
        return {}
    all_ = sorted(r[0] / 1000 for r in res["rpcs"])
    small = sorted(r[0] / 1000 for r in res["rpcs"] if r[1] <= SMALL)
    return {"n": len(all_), "missed": res.get("missed", 0),
            "unfinished": res.get("unfinished", 0),
            "p50": pct(all_, 50), "p99": pct(all_, 99),
            "p999": pct(all_, 99.9), "small_p99": pct(small, 99),
            "small_n": len(small)}


def slo_point(d, p, warm, win, target_ms):
    """One load point of the SLO phase: the responses sent in the window
    (WIN s after WARM s of the sender's run), how many arrived whole
    within TARGET_MS, their times' percentiles (a response not whole
    counts as infinitely late), the goodput of the whole ones, the
    datagrams reordered."""
    snd = load(os.path.join(d, "send_%s.json" % p))
    rcv = load(os.path.join(d, "sink_%s.json" % p))
    if not snd or not rcv or not snd["starts_ns"]:
        return None
    t0 = snd["starts_ns"][0] + warm * 1e9
    ids = [i for i, t in enumerate(snd["starts_ns"]) if t0 <= t < t0 + win * 1e9]
    got = rcv["responses"]
    burst = snd["burst"]
    times = sorted(got[str(i)][1] / 1e6 if got.get(str(i), [0])[0] >= burst
                   else math.inf for i in ids)
    whole = sum(1 for t in times if t < math.inf)
    within = sum(1 for t in times if t <= target_ms)
    n = len(ids)
    return {"load_pct": int(p), "offered_mbit": snd["rate"] * 8 / 1e6,
            "responses": n, "whole": whole, "within": within,
            "within_frac": within / n if n else None,
            "within_per_s": within / win,
            "p50_ms": pct(times, 50), "p99_ms": pct(times, 99),
            "p999_ms": pct(times, 99.9),
            "goodput_mbit": whole * burst * snd["size"] * 8 / win / 1e6,
            "reordered": rcv.get("reordered", 0)}


def slo_stats(raw):
    """The SLO phase: {contender: [point, ...]} and its conditions."""
    base = os.path.join(raw, "slo")
    cond = load(os.path.join(base, "conditions.json"))
    if not cond:
        return {}, {}
    res = {}
    for n in sorted(os.listdir(base)):
        if not os.path.isdir(os.path.join(base, n)):
            continue
        pts = [slo_point(os.path.join(base, n), p, cond["warm_seconds"],
                         cond["window_seconds"], cond["target_ms"])
               for p in cond["points"]]
        res[n] = [x for x in pts if x]
    order = ["aiclass_slo", "aiclass"]
    res = dict(sorted(res.items(), key=lambda kv: (
        order.index(kv[0]) if kv[0] in order else len(order), kv[0])))
    return res, cond


def jain(xs):
    s = sum(xs)
    q = sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q else None


def coll_stats(c):
    if not c or not c["steps"]:
        return {}
    steps = c["steps"]
    times = sorted(max(s[1:]) for s in steps)
    jains = [jain([c["step_bytes"] / d for d in s[1:] if d > 0])
             for s in steps]
    jains = [j for j in jains if j]
    total = c["flows"] * c["step_bytes"] * len(steps)
    return {"steps": len(steps), "step_p50": pct(times, 50),
            "step_max": times[-1],
            "jain": sum(jains) / len(jains) if jains else None,
            "jain_min": min(jains) if jains else None,
            "mbit": total * 8 / c["elapsed"] / 1e6}


def udp_mbit(u, t0=None, win=None):
    """Received UDP goodput: from the server's 1 s intervals inside the
    counting window when there are some, else the whole run's."""
    try:
        iv = [i["sum"] for i in u["server_output_json"]["intervals"]]
        if t0 is not None:
            iv = [i for i in iv if i["start"] >= t0 - 0.5 and
                  i["end"] <= t0 + win + 0.5]
        secs = sum(i["end"] - i["start"] for i in iv)
        if secs > 0:
            return sum(i["bytes"] for i in iv) * 8 / secs / 1e6
    except (KeyError, TypeError):
        pass
    try:
        s = u["end"]["sum"]
        return s["bits_per_second"] * (1 - s.get("lost_percent", 0) / 100) / 1e6
    except (KeyError, TypeError):
        return None


def sockperf(path):
    """Percentiles of a sockperf ping-pong run, ms (full round trips)."""
    r = {}
    try:
        for line in open(path):
            if "percentile" in line and "=" in line:
                k = line.split("percentile")[1].split("=")[0].strip()
                r["p" + k] = float(line.split("=")[1]) / 1000
            elif "<MAX> observation" in line:
                r["max"] = float(line.split("=")[1]) / 1000
            elif "SentMessages=" in line and "n" not in r:
                r["n"] = int(line.split("SentMessages=")[1].split(";")[0])
    except (OSError, ValueError, IndexError):
        pass
    return r


def tcp_mbit(j):
    try:
        return j["end"]["sum_received"]["bits_per_second"] / 1e6
    except (KeyError, TypeError):
        return None


def median(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def find(o, key):
    """The first value of key at any depth of a JSON object."""
    if isinstance(o, dict):
        if key in o:
            return o[key]
        o = list(o.values())
    if isinstance(o, list):
        for v in o:
            r = find(v, key)
            if r is not None:
                return r
    return None


UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}


def ns_of(text):
    """'104.8us' -> 104800.0 (ns)."""
    m = re.match(r"([0-9.]+)([a-z]+)$", text)
    return float(m.group(1)) * UNITS[m.group(2)] if m and m.group(2) in UNITS else None


def parse_classes(text):
    """`tc -s class show` text (tc 6.1 prints classes in text only) ->
    [{"class": KIND, "handle": H, "bytes": N, "sojourn_avg": NS, ...}]."""
    out = []
    for line in text.splitlines():
        w = line.split()
        if len(w) >= 3 and w[0] == "class":
            out.append({"class": w[1], "handle": w[2]})
        elif out and w[:1] == ["Sent"]:
            out[-1]["bytes"] = int(w[1])
        elif out:
            for k in ("sojourn_avg", "sojourn_max"):
                if k in w and w.index(k) + 1 < len(w):
                    out[-1][k] = ns_of(w[w.index(k) + 1])
    return out


def load_classes(path):
    try:
        return parse_classes(open(path).read())
    except OSError:
        return []


def class_bytes(classes):
    """{handle: bytes sent} from parse_classes."""
    return {c["handle"]: c["bytes"] for c in classes or [] if "bytes" in c}


def rtt_samples(path):
    """The collective's smoothed RTTs, ms, from the sampler's rtt.txt."""
    try:
        return sorted(float(l.split()[1]) for l in open(path) if len(l.split()) == 2)
    except (OSError, ValueError):
        return []


def sojourn(path):
    """Per aiclass class: median over the window's samples of sojourn_avg
    and the last sojourn_max, ms, from the sampler's class.samples."""
    avg, mx = {}, {}
    try:
        samples = open(path).read().split("@@ ")
    except OSError:
        return {}
    for text in samples:
        for c in parse_classes(text):
            if c.get("class") != "aiclass" or c.get("sojourn_avg") is None:
                continue
            avg.setdefault(c["handle"], []).append(c["sojourn_avg"] / 1e6)
            if c.get("sojourn_max") is not None:
                mx[c["handle"]] = c["sojourn_max"] / 1e6
    return {h: {"avg_ms": median(v), "max_ms": mx.get(h)} for h, v in avg.items()}


QD_KINDS = {1: "inference RPC responses", 2: "ping-pong", 3: "training TCP",
            4: "RoCEv2 UDP"}
MTU_WIRE = 1514         # bytes of a full packet as the qdiscs count it


def qdelay(path):
    """tools/bench/qdelay.bt's counts: {kind: {"sojourn": [(us, n)...],
    "head": [...]}}, each sorted by us; {} without a trace."""
    got = {}
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return got
    for line in lines:
        m = re.match(r"@(sojourn|head)\[(\d+), (\d+)\]: (\d+)$", line.strip())
        if m:
            what, kind, us, n = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))
            got.setdefault(kind, {"sojourn": [], "head": []})[what].append((us, n))
    for k in got.values():
        for v in k.values():
            v.sort()
    return got


def hist_pct(h, p):
    """The p-th percentile, in ms, of a [(us, count)] histogram."""
    total = sum(n for _, n in h)
    if not total:
        return None
    want, acc = total * p / 100.0, 0
    for us, n in h:
        acc += n
        if acc >= want:
            return us / 1000.0
    return h[-1][0] / 1000.0


def qd_stats(h):
    return {"n": sum(n for _, n in h), "p50": hist_pct(h, 50),
            "p99": hist_pct(h, 99), "p999": hist_pct(h, 99.9)}


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt(v, nd=2):
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return "%.*f" % (nd, v)
    return str(v)


def main():
    if sys.argv[1] == "--slo-point":
        d, p, warm, win, target = sys.argv[2:7]
        r = slo_point(d, p, float(warm), float(win), float(target))
        if not r:
            print("no numbers")
            return
        print("%d of %d responses within %s ms, p99 %s ms, %s Mbit/s whole, %d reordered" % (
            r["within"], r["responses"], target, fmt(r["p99_ms"]),
            fmt(r["goodput_mbit"]), r["reordered"]))
        return
    raw, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    cond = load(os.path.join(raw, "conditions.json"), {})
    rate = cond.get("rate_mbit", 50)
    cond["unshaped_mbit"] = tcp_mbit(load(os.path.join(raw, "capacity.json")))

    names = [n for n in MAIN if os.path.isdir(os.path.join(raw, n))]
    names += sorted(n for n in os.listdir(raw)
                    if n.startswith("aiclass_") and n not in MAIN and
                    os.path.isdir(os.path.join(raw, n)))
    rows = {}
    raw_lat = {}
    for n in names:
        d = os.path.join(raw, n)
        idle = load(os.path.join(d, "idle.json"))
        loaded = load(os.path.join(d, "loaded.json"))
        raw_lat[n] = sorted(r[0] / 1000 for r in loaded["rpcs"]) if loaded else []
        li, ll = lat_stats(idle), lat_stats(loaded)
        co = coll_stats(load(os.path.join(d, "coll.json")))
        link = load(os.path.join(d, "link.json"), {})
        win = link.get("window")
        u = udp_mbit(load(os.path.join(d, "udp.json")),
                     link.get("window_start"), win)
        cwin = link.get("collective_window", win)
        if cwin and link.get("collective_bytes"):
            co["mbit"] = link["collective_bytes"] * 8 / cwin / 1e6
        pi = sockperf(os.path.join(d, "idle.ping"))
        pl = sockperf(os.path.join(d, "loaded.ping"))
        try:
            args = open(os.path.join(d, "qdisc.args")).read().strip()
        except OSError:
            args = ""
        rtts = rtt_samples(os.path.join(d, "rtt.txt"))
        soj = sojourn(os.path.join(d, "class.samples"))
        tr = soj.get("1:11") or soj.get("1:12") or {}
        lat = soj.get("1:1") or {}
        train = (co.get("mbit") or 0) + (u or 0)
        util = (link["tx_bytes"] * 8 / link["window"] / (rate * 1e6)
                if link.get("window") else None)
        rows[n] = {
            "contender": n, "qdisc": args,
            "rpc_n": ll.get("n"), "rpc_missed": ll.get("missed"),
            "rpc_p50_ms": ll.get("p50"), "rpc_p99_ms": ll.get("p99"),
            "rpc_p999_ms": ll.get("p999"),
            "idle_p50_ms": li.get("p50"), "idle_p99_ms": li.get("p99"),
            "idle_p999_ms": li.get("p999"),
            "p99_x_idle": ratio(ll.get("p99"), li.get("p99")),
            "small_p99_ms": ll.get("small_p99"),
            "small_idle_p99_ms": li.get("small_p99"),
            "small_p99_x_idle": ratio(ll.get("small_p99"), li.get("small_p99")),
            "ping_n": pl.get("n"), "ping_p50_ms": pl.get("p50.000"),
            "ping_p99_ms": pl.get("p99.000"), "ping_p999_ms": pl.get("p99.900"),
            "ping_idle_p99_ms": pi.get("p99.000"),
            "ping_p99_x_idle": ratio(pl.get("p99.000"), pi.get("p99.000")),
            "collective_mbit": co.get("mbit"), "udp_mbit": u,
            "training_mbit": train, "link_util": util,
            "steps": co.get("steps"), "step_p50_s": co.get("step_p50"),
            "step_max_s": co.get("step_max"), "jain": co.get("jain"),
            "jain_min": co.get("jain_min"),
            "cpu_busy": link.get("cpu_busy"),
            "train_rtt_p50_ms": pct(rtts, 50), "train_rtt_p90_ms": pct(rtts, 90),
            "train_rtt_n": len(rtts),
            "train_sojourn_avg_ms": tr.get("avg_ms"),
            "train_sojourn_max_ms": tr.get("max_ms"),
            "lat_sojourn_avg_ms": lat.get("avg_ms"),
            "lat_sojourn_max_ms": lat.get("max_ms"),
            "sojourn": soj,
            "qdisc_stats": load(os.path.join(d, "qdisc.json")),
        }
        qd = qdelay(os.path.join(d, "qdelay.txt"))
        rows[n]["qdelay"] = {QD_KINDS[k]: {w: qd_stats(v[w]) for w in v}
                             for k, v in sorted(qd.items()) if k in QD_KINDS}
        for k, tag in ((1, "rpc"), (2, "ping"), (3, "train")):
            e = qd.get(k)
            rows[n]["qd_%s_p99_ms" % tag] = hist_pct(e["sojourn"], 99) if e else None
            rows[n]["qd_%s_head_p99_ms" % tag] = hist_pct(e["head"], 99) if e else None

    # DRR shares, weights 1:2:4: the classes' own byte counters over the
    # steady-state window
    drr = {}
    for n in ("aiclass", "ets"):
        d = os.path.join(raw, "drr_" + n)
        try:
            hs = open(os.path.join(d, "classes")).read().split()
        except OSError:
            continue
        b0 = class_bytes(load_classes(os.path.join(d, "class0.txt")))
        b1 = class_bytes(load_classes(os.path.join(d, "class1.txt")))
        win = cond.get("window_seconds") or 1
        got = [(b1.get(h, 0) - b0.get(h, 0)) * 8 / win / 1e6 for h in hs]
        if not sum(got):
            continue
        shares = [g / sum(got) for g in got]
        want = [1 / 7, 2 / 7, 4 / 7]
        err = [s_ / w - 1 for s_, w in zip(shares, want)]
        drr[n] = {"classes": hs, "mbit": got, "shares": shares, "want": want,
                  "error": err, "max_abs_error": max(abs(e) for e in err)}

    # accuracy: each kind's bytes per aiclass class kind (latency, training)
    mix = {}
    md_ = os.path.join(raw, "mix")
    try:
        kinds = [l.split() for l in open(os.path.join(md_, "kinds"))]
    except OSError:
        kinds = []
    snaps = {k: class_bytes(load_classes(os.path.join(md_, "class%s.txt" % k)))
             for k in ("_start", "0", "1", "_end")}
    gen = {"nccl": load(os.path.join(md_, "nccl.json"), {}),
           "rpc": load(os.path.join(md_, "rpc.json"), {}),
           "short": load(os.path.join(md_, "short.json"), {})}
    for kind, major, htbcls in kinds:
        if kind == "other":
            continue
        r = {}
        for span, (s0, s1) in (("window", ("0", "1")), ("whole", ("_start", "_end"))):
            lat = train = 0
            for h, v in snaps[s1].items():
                maj, _, mnr = h.partition(":")
                if maj != major or not mnr:
                    continue
                dv = v - snaps[s0].get(h, 0)
                if int(mnr, 16) <= 8:
                    lat += dv
                else:
                    train += dv
            tot = snaps[s1].get(htbcls, 0) - snaps[s0].get(htbcls, 0)
            r[span] = {"latency_bytes": lat, "training_bytes": train,
                       "htb_bytes": tot,
                       "latency_frac": lat / (lat + train) if lat + train else None,
                       "training_frac": train / (lat + train) if lat + train else None}
        g = gen.get(kind) or {}
        r["generator_bytes"] = g.get("sent_bytes", g.get("response_bytes"))
        r["connections"] = g.get("connections", g.get("flows"))
        r["rpcs"] = len(g.get("rpcs", [])) if "rpcs" in g else None
        r["steps"] = len(g.get("steps", [])) if "steps" in g else None
        mix[kind] = r

    # pktgen: fair (child of prio) and bypass (root); median of the runs,
    # with the spread (min, max)
    cost = {"fair": {}, "bypass": {}}
    try:
        for line in open(os.path.join(raw, "pktgen.txt")):
            how, n, flows, rep, v, ns = line.split()
            e = cost[how].setdefault(n, {}).setdefault(
                int(flows), {"pps": [], "ns": [], "rep": []})
            e["pps"].append(int(v))
            e["ns"].append(int(ns))
            e["rep"].append(int(rep))
    except (OSError, ValueError):
        pass
    for how in cost.values():
        for n in how.values():
            for f, e in n.items():
                e["pps_median"] = median(e["pps"])
                e["ns_median"] = median(e["ns"])
    # Paired: each run against fq_codel's of the same repetition and flow
    # count, run seconds apart, so that what moves both cancels out.
    for how in cost.values():
        for n in how.values():
            for f, e in n.items():
                base = how.get("fq_codel", {}).get(f)
                if not base:
                    continue
                by_rep = dict(zip(base["rep"], base["pps"]))
                e["x_fq_codel"] = [v / by_rep[r] for r, v in zip(e["rep"], e["pps"])
                                   if by_rep.get(r)]
                e["x_fq_codel_median"] = (median(e["x_fq_codel"])
                                          if e["x_fq_codel"] else None)
    pps = {n: {f: e["pps_median"] for f, e in v.items()}
           for n, v in cost["fair"].items()}
    mem = {}
    try:
        for line in open(os.path.join(raw, "memory.txt")):
            n, _, kb = line.split()
            mem.setdefault(n, []).append(int(kb))
    except OSError:
        pass
    flowstate = {}
    try:
        for line in open(os.path.join(raw, "flowstate.txt")):
            p = line.split(None, 2)
            if len(p) == 3 and p[1].isdigit():
                flowstate[p[0]] = {"struct": p[2].strip(), "bytes": int(p[1])}
    except OSError:
        pass
    for f in os.listdir(raw):
        if f.startswith("perf_") and f.endswith(".txt"):
            shutil.copy(os.path.join(raw, f), os.path.join(out, f))
    pgnames = [n for n in COST if n in cost["fair"]]

    # targets (aiclass with defaults and no hints)
    a, fq = rows.get("aiclass", {}), rows.get("fq_codel", {})
    targets = []

    def target(what, ok, measured, value=None):
        # value: the number the target reads (tools/bench/spread.py)
        targets.append({"target": what, "met": bool(ok), "measured": measured,
                        "value": value})

    # the best peer: the best of fq_codel, cake, fq and the ets + fq_codel
    # composition, all without hints, for each number on its own
    peers = [rows[n] for n in PEERS if n in rows]

    def best(key, hi=False):
        vals = [(r[key], r["contender"]) for r in peers if r.get(key) is not None]
        if not vals:
            return None, None
        return max(vals) if hi else min(vals)

    bp, bpn = best("rpc_p99_ms")
    rr = ratio(a.get("rpc_p99_ms"), bp)
    target("inference RPC p99 under load <= 0.2x the best peer's",
           rr is not None and rr <= 0.2,
           "%s x (%s ms vs %s's %s ms)" % (fmt(rr), fmt(a.get("rpc_p99_ms")), bpn, fmt(bp)),
           rr)
    target("inference RPC p99 under load <= 1.1x its own idle p99",
           a.get("p99_x_idle") is not None and a["p99_x_idle"] <= 1.1,
           "%s x (%s vs %s ms idle)" % (fmt(a.get("p99_x_idle")), fmt(a.get("rpc_p99_ms")),
                                        fmt(a.get("idle_p99_ms"))), a.get("p99_x_idle"))
    bp, bpn = best("ping_p99_ms")
    rr = ratio(a.get("ping_p99_ms"), bp)
    bs, bsn = best("small_p99_ms")
    target("small-message p99 (ping-pong) no worse than the best peer's",
           rr is not None and rr <= 1.0,
           "%s x (%s vs %s's %s ms; RPCs up to 1 KB: %s vs %s's %s ms)" % (
               fmt(rr), fmt(a.get("ping_p99_ms")), bpn, fmt(bp),
               fmt(a.get("small_p99_ms")), bsn, fmt(bs)), rr)
    limit = 2 * MTU_WIRE * 8 / (rate * 1e6) * 1000
    cond["qdelay_limit_ms"] = limit
    hq = [a.get("qd_rpc_head_p99_ms"), a.get("qd_ping_head_p99_ms")]
    target("inference packets' qdisc delay p99 (at the head of their flow) "
           "within 2x the physical limit (%.3f ms)" % limit,
           None not in hq and max(hq) <= 2 * limit,
           "RPC responses %s ms (%s x), ping-pong %s ms (%s x); sojourn p99 %s / %s ms" % (
               fmt(hq[0], 3), fmt(ratio(hq[0], limit)), fmt(hq[1], 3),
               fmt(ratio(hq[1], limit)), fmt(a.get("qd_rpc_p99_ms"), 3),
               fmt(a.get("qd_ping_p99_ms"), 3)),
           ratio(max(hq), limit) if None not in hq else None)
    bp, bpn = best("train_rtt_p50_ms")
    rr = ratio(a.get("train_rtt_p50_ms"), bp)
    target("training RTT (median) <= 1.2x the best peer's", rr is not None and rr <= 1.2,
           "%s x (%s vs %s's %s ms; p90 %s ms)" % (
               fmt(rr), fmt(a.get("train_rtt_p50_ms"), 1), bpn, fmt(bp, 1),
               fmt(a.get("train_rtt_p90_ms"), 1)), rr)
    bp, bpn = best("training_mbit", hi=True)
    g = ratio(a.get("training_mbit"), bp)
    target("training goodput >= 0.97x the best peer's", g is not None and g >= 0.97,
           "%s x (%s vs %s's %s Mbit/s)" % (fmt(g), fmt(a.get("training_mbit"), 1),
                                            bpn, fmt(bp, 1)), g)
    de = drr.get("aiclass", {}).get("max_abs_error")
    target("DRR shares within +-2% of weights 1:2:4 in steady state",
           de is not None and de <= 0.02,
           "max error %s %% (ets %s %%)" % (
               fmt(de * 100 if de is not None else None, 2),
               fmt(drr["ets"]["max_abs_error"] * 100 if "ets" in drr else None, 1)), de)
    for kind, side, what in (("nccl", "training_frac", "NCCL-like bytes in training"),
                             ("rpc", "latency_frac", "gRPC-like RPC bytes in latency bands")):
        v = mix.get(kind, {}).get("window", {}).get(side)
        target(">= 99%% of %s (steady-state window)" % what, v is not None and v >= 0.99,
               "%s %% (from the start: %s %%)" % (
                   fmt(v * 100 if v is not None else None, 2),
                   fmt((mix.get(kind, {}).get("whole", {}).get(side) or 0) * 100, 2)), v)
    for n in ("aiclass", "aiclass_codel"):
        rel = [cost["fair"].get(n, {}).get(f, {}).get("x_fq_codel_median") for f in FLOWS]
        rom = [ratio(pps.get(n, {}).get(f), pps.get("fq_codel", {}).get(f)) for f in FLOWS]
        target("%s packets per second >= 1.0x fq_codel's, both children of prio, "
               "at 16 / 1000 / 10000 flows (median of the paired runs' ratios)" % n,
               None not in rel and min(rel) >= 1.0,
               " / ".join(fmt(x) for x in rel) + " x; ratio of the medians " +
               " / ".join(fmt(x) for x in rom) + " x", rel)
    c16 = cost["fair"].get("aiclass", {}).get(16, {}).get("ns_median")
    c10k = cost["fair"].get("aiclass", {}).get(10000, {}).get("ns_median")
    own = ratio(c10k, c16)
    target("own cost (CPU ns per packet) at 10000 flows <= 1.2x that at 16",
           own is not None and own <= 1.2,
           "%s x (%s vs %s ns)" % (fmt(own), fmt(c10k), fmt(c16)), own)
    fs = flowstate.get("aiclass", {}).get("bytes")
    target("per-flow state <= 80 bytes", fs is not None and fs <= 80,
           "%s bytes" % fmt(fs), fs)

    slo, slo_cond = slo_stats(raw)
    if slo:
        top = max(slo_cond["points"])
        at = {n: next((x for x in v if x["load_pct"] == top), {}) for n, v in slo.items()}
        on, off = at.get("aiclass_slo", {}), at.get("aiclass", {})
        rr = ratio(on.get("within"), off.get("within")) if off.get("within") else (
            math.inf if on.get("within") else None)
        target("latency SLO at %d %% of 1:1's capacity: responses within %s ms with "
               "`slo %s` >= 2x without" % (top, fmt(slo_cond["target_ms"]), slo_cond["slo"]),
               rr is not None and rr >= 2,
               "%s x (%s vs %s of %s)" % (fmt(rr), on.get("within"), off.get("within"),
                                          on.get("responses")), rr)
        reord = sum(x["reordered"] for x in slo.get("aiclass_slo", []))
        target("latency SLO: no datagram reordered", reord == 0 and "aiclass_slo" in slo,
               "%d reordered" % reord, reord)

    result = {"conditions": cond, "rows": list(rows.values()), "drr": drr,
              "accuracy": mix, "cost": cost, "pps": pps, "memory_kb": mem,
              "flow_state": flowstate, "slo": {"conditions": slo_cond, "points": slo},
              "targets": targets}
    with open(os.path.join(out, "bench.json"), "w") as f:
        json.dump(result, f, indent=1, default=str)
    cols = [k for k in next(iter(rows.values()), {})
            if k not in ("qdisc_stats", "sojourn", "qdelay")]
    with open(os.path.join(out, "bench.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in rows.values():
            w.writerow({k: (round(v, 4) if isinstance(v, float) else v)
                        for k, v in r.items()})

    md = markdown(cond, rows, drr, mix, cost, pgnames, mem, flowstate, targets)
    md += slo_markdown(slo, slo_cond)
    with open(os.path.join(out, "bench.md"), "w") as f:
        f.write(md)
    print(md)
    plots(out, rows, raw_lat, pps, pgnames)
    slo_plot(out, slo, slo_cond)


def slo_markdown(slo, c):
    if not slo:
        return ""
    L = ["",
         "Latency SLO under inference overload: 4 bulk TCP flows beside UDP responses "
         "of %d x %d B (DSCP 46, %d flows) offered at %s %% of what aiclass's 1:1 "
         "carries beside backlogged training (%.1f Mbit/s of payload: the link less "
         "train_share); aiclass with `slo %s` on 1:1 and without; a response counts "
         "when all its datagrams arrived within %s ms of its send (responses sent in "
         "%s s after %s s; not whole: infinitely late):" % (
             c["burst"], c["size"], c["flows"], " / ".join(str(p) for p in c["points"]),
             c["capacity_bytes"] * 8 / 1e6, c["slo"], fmt(c["target_ms"]),
             c["window_seconds"], c["warm_seconds"]),
         "",
         "| contender | load | offered Mbit/s | responses | whole | within target "
         "| within /s | p50 / p99 / p99.9 ms | goodput Mbit/s | reordered |",
         "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]

    def ms(v):
        return "lost" if v == math.inf else fmt(v)
    for n, pts in slo.items():
        for x in pts:
            L.append("| %s | %d %% | %s | %d | %d | %s %% | %s | %s / %s / %s | %s | %d |" % (
                n, x["load_pct"], fmt(x["offered_mbit"], 1), x["responses"], x["whole"],
                fmt(x["within_frac"] * 100 if x["within_frac"] is not None else None, 1),
                fmt(x["within_per_s"], 1), ms(x["p50_ms"]), ms(x["p99_ms"]),
                ms(x["p999_ms"]), fmt(x["goodput_mbit"], 1), x["reordered"]))
    L.append("")
    return "\n".join(L)


def slo_plot(out, slo, c):
    if not slo or not shutil.which("gnuplot"):
        return
    tmp = tempfile.mkdtemp()
    plot = []
    for n, pts in slo.items():
        f = os.path.join(tmp, n + ".slo")
        with open(f, "w") as fh:
            for x in pts:
                fh.write("%d %.4f\n" % (x["load_pct"], x["within_frac"] or 0))
        plot.append("'%s' using 1:2 with linespoints lw 2 title '%s'" % (
            f, n.replace("_", "\\_")))
    run_gnuplot("set terminal pngcairo size 800,480 font 'sans,9'\n"
                "set output '%s'\nset grid\nset yrange [0:1.05]\n"
                "set xlabel 'offered inference load, %% of what 1:1 carries beside training'\n"
                "set ylabel 'fraction of responses within %s ms'\nset key bottom left\n"
                "set title 'SLO attainment against offered load (slo %s)'\nplot " % (
                    os.path.join(out, "slo.png"), fmt(c["target_ms"]), c["slo"])
                + ", ".join(plot) + "\n")
    shutil.rmtree(tmp)


def spread(e, key, scale=1.0, nd=0):
    """'median (min-max)' of a cost entry's runs."""
    if not e or not e.get(key):
        return "-"
    v = e[key]
    m = median(v) / scale
    if len(v) == 1:
        return "%.*f" % (nd, m)
    return "%.*f (%.*f-%.*f)" % (nd, m, nd, min(v) / scale, nd, max(v) / scale)


def markdown(cond, rows, drr, mix, cost, pgnames, mem, flowstate, targets):
    L = []
    L.append("Conditions: %s guest, %s vCPUs, kernel %s; HTB bottleneck %s Mbit/s "
             "(unshaped path carries %s Mbit/s), netem %s on the return path, "
             "idle RTT %s ms; offloads: %s; TCP %s; %s; commit %s, module %s; "
             "clocksource at the end %s.%s" % (
                 cond.get("accel"), cond.get("vcpus"), cond.get("kernel"),
                 cond.get("rate_mbit"), fmt(cond.get("unshaped_mbit"), 0),
                 cond.get("delay"), cond.get("rtt_ms"), cond.get("offloads"),
                 cond.get("tcp"), cond.get("date"), cond.get("commit"),
                 cond.get("module_srcversion") or "unknown",
                 cond.get("clocksource") or "unknown",
                 " QUICK smoke run: numbers mean nothing." if cond.get("quick") else ""))
    L.append("")
    L.append("aiclass targets (defaults, no hints):")
    L.append("")
    for t in targets:
        L.append("- %s: **%s** (%s)" % (t["target"], "met" if t["met"] else "not met",
                                        t["measured"]))
    L.append("")

    fair = cost.get("fair", {})
    if fair:
        L.append("Per-packet cost, fair: pktgen queue_xmit into a dummy device, 64-byte "
                 "UDP packets, the contender as the child of a `prio` band (no bypass, "
                 "same parent for all); %s packets a run, median (min-max) of %s "
                 "interleaved runs; x fq_codel: the median (min-max) of each run's "
                 "packets per second over fq_codel's in the same repetition:" % (
                     cond.get("pktgen_count"), cond.get("pktgen_reps")))
        L.append("")
        L.append("| contender | kpps 16 flows | kpps 1000 | kpps 10000 "
                 "| CPU ns/packet 16 | ns/packet 1000 | ns/packet 10000 "
                 "| x fq_codel 16 | x fq_codel 1000 | x fq_codel 10000 |")
        L.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for n in pgnames:
            e = fair[n]
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                n, *[spread(e.get(f), "pps", 1000) for f in FLOWS],
                *[spread(e.get(f), "ns") for f in FLOWS],
                *[spread(e.get(f), "x_fq_codel", 1.0, 2) for f in FLOWS]))
        L.append("")
        L.append("aiclass_codel = `aiclass target 10us interval 100us`; fq on kernel %s "
                 "%s. The dummy device never pushes back, so each packet is enqueued "
                 "and at once dequeued: the queue stays at a packet or two, CoDel "
                 "measures sojourn on every dequeue but never acts; CPU ns/packet is "
                 "the CPU time of pktgen's thread (building the packet, the qdiscs' "
                 "enqueue and dequeue, the dummy's xmit) per packet." % (
                     cond.get("kernel"),
                     "has 3 priority bands" if cond.get("fq_bands") else "has no bands (before 6.7)"))
        L.append("")

    L.append("Load: %s TCP flows in lock-step, %d KB each per step, + UDP "
             "elephant to 4791 at %s Mbit/s; RPCs (200 B requests, "
             "256 B-32 KB responses, Poisson bursts of 1-6 at 20 per second) and a "
             "sockperf TCP ping-pong (200 B, 100 per second) timed for %s s loaded and "
             "%s s idle; training RTT (the collective's smoothed RTT, `ss -tin` on "
             "the sender, once a second), class sojourn (`tc -s class`, aiclass), "
             "link, training and CPU counted over a %s s window after %s s of warm-up." % (
                 cond.get("collective_flows"), cond.get("step_bytes", 0) // 1024,
                 cond.get("udp_mbit"), cond.get("rpc_seconds"),
                 cond.get("idle_seconds"), cond.get("window_seconds"),
                 cond.get("warm_seconds")))
    L.append("")
    best = max((r["link_util"] or 0 for r in rows.values()), default=0)
    if rows and best < 0.9:
        L.append("**Warning: no contender got the link past %.0f %%: the emulated "
                 "CPU, not the bottleneck, limited this run, so goodput and "
                 "utilisation compare CPU cost more than scheduling.**" % (best * 100))
        L.append("")
    L.append("| contender | RPC p50 / p99 / p99.9 loaded, ms | RPC p99 idle, ms "
             "| RPC p99 x idle | ping-pong p99 loaded / idle, ms | ping p99 x idle "
             "| training RTT p50 / p90, ms | training sojourn avg / max, ms "
             "| latency 1:1 sojourn avg / max, ms "
             "| training Mbit/s | link util | step p50, s | Jain | guest CPU |")
    L.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows.values():
        L.append("| %s | %s / %s / %s | %s | %s | %s / %s | %s | %s / %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["contender"], fmt(r["rpc_p50_ms"]), fmt(r["rpc_p99_ms"]),
            fmt(r["rpc_p999_ms"]), fmt(r["idle_p99_ms"]),
            fmt(r["p99_x_idle"], 1), fmt(r["ping_p99_ms"]),
            fmt(r["ping_idle_p99_ms"]), fmt(r["ping_p99_x_idle"], 1),
            fmt(r["train_rtt_p50_ms"], 1), fmt(r["train_rtt_p90_ms"], 1),
            "%s / %s" % (fmt(r["train_sojourn_avg_ms"]), fmt(r["train_sojourn_max_ms"]))
            if r["train_sojourn_avg_ms"] is not None else "-",
            "%s / %s" % (fmt(r["lat_sojourn_avg_ms"]), fmt(r["lat_sojourn_max_ms"]))
            if r["lat_sojourn_avg_ms"] is not None else "-",
            fmt(r["training_mbit"], 1),
            "%s %%" % fmt((r["link_util"] or 0) * 100, 1),
            fmt(r["step_p50_s"], 3), fmt(r["jain"], 3),
            "%s %%" % fmt((r["cpu_busy"] or 0) * 100, 0)))
    L.append("")
    L.append("Qdisc arguments: " + "; ".join(
        "%s = `%s`" % (r["contender"], r["qdisc"]) for r in rows.values()) +
        ". aiclass_hints adds tc filters: RPC responses (tcp sport 7000) to "
        "1:1, the collective (tcp dport 7100) to 1:11, the UDP elephant to 1:12; "
        "ets_fq_codel is ets with one strict band and three DRR bands (quantum "
        "1514 each), an fq_codel under every band and everything unhinted in "
        "the last band; ets_fq_codel_hints adds the same three filters, to the "
        "strict band 1:1 and the DRR bands 1:2 and 1:3; "
        "fq_hints sets the same three as skb->priority 6 / 0 / 2 (fq's bands "
        "0 / 1 / 2) with a clsact egress filter. aiclass_rate is root with its "
        "own shaper instead of the HTB. %s Sojourn: the median over the window's "
        "samples of the class's sojourn_avg (an EWMA), and its sojourn_max at the "
        "end (since the qdisc was installed, warm-up included)." % (
            "fq has three priority bands on this kernel." if cond.get("fq_bands") else
            "fq has no priority bands on this kernel (before 6.7): its row is fq "
            "without bands and there is no fq_hints row."))
    L.append("")
    if any(r.get("qdelay") for r in rows.values()):
        lim = cond.get("qdelay_limit_ms")
        L.append("Per-packet delay in the bottleneck's qdisc tree, loaded window "
                 "(tools/bench/qdelay.bt: from dev_queue_xmit on the router's egress "
                 "to the driver; a GSO packet counts once per segment). *In the "
                 "tree*: arrival to departure. *At the head*: from the later of its "
                 "arrival and its flow's previous departure, to its own departure, "
                 "so the packets of its own message ahead of it are out and what "
                 "other traffic costs it is in. The physical limit for an inference "
                 "packet at the head of its flow under strict priority is the packet "
                 "on the wire plus what the guard owes training, one packet when its "
                 "credit reaches `train_share` x `burst`: L = 2 x MTU x 8 / rate = "
                 "2 x %d x 8 / %s Mbit/s = **%s ms** (a latency message longer than "
                 "`burst` drains at (100 - `train_share`) %% of the rate). A qdisc that "
                 "sends GSO packets whole puts up to 64 KB on the wire at once: "
                 "%s ms at this rate." % (
                     MTU_WIRE, cond.get("rate_mbit"), fmt(lim, 3),
                     fmt(65536 * 8 / (cond.get("rate_mbit", 40) * 1e3), 1)))
        L.append("")
        L.append("| contender | traffic | packets | in the tree p50 / p99 / p99.9, ms "
                 "| at the head p50 / p99 / p99.9, ms | head p99 x L |")
        L.append("| --- | --- | --- | --- | --- | --- |")
        for r in rows.values():
            for kind, e in (r.get("qdelay") or {}).items():
                so, hd = e.get("sojourn", {}), e.get("head", {})
                L.append("| %s | %s | %s | %s / %s / %s | %s / %s / %s | %s |" % (
                    r["contender"], kind, so.get("n"),
                    fmt(so.get("p50"), 3), fmt(so.get("p99"), 3), fmt(so.get("p999"), 3),
                    fmt(hd.get("p50"), 3), fmt(hd.get("p99"), 3), fmt(hd.get("p999"), 3),
                    fmt(ratio(hd.get("p99"), lim), 1) if kind.startswith(("inf", "ping")) else "-"))
        L.append("")
    if drr:
        L.append("DRR shares, three classes weighted 1:2:4 (two TCP streams each), "
                 "the classes' byte counters over %s s after %s s of warm-up:" % (
                     cond.get("window_seconds"), cond.get("warm_seconds")))
        L.append("")
        L.append("| qdisc | Mbit/s per class | shares | error vs weight |")
        L.append("| --- | --- | --- | --- |")
        for n, d in drr.items():
            L.append("| %s | %s | %s | %s |" % (
                n, " / ".join(fmt(x, 1) for x in d["mbit"]),
                " / ".join("%.3f" % s for s in d["shares"]),
                " / ".join("%+.2f %%" % (e * 100) for e in d["error"])))
        L.append("")
    if mix:
        L.append("Classification accuracy, defaults and no hints: NCCL-like (%s peers x "
                 "4 connections, 512 KB steps in 128 KB chunks, compute phases 5 ms-1 s), "
                 "gRPC-like (persistent connections, Poisson bursts) and short "
                 "connections at once, each kind through its own default aiclass under "
                 "one HTB; bytes the aiclass classes sent, over %s s after %s s, and "
                 "from the start:" % (cond.get("mix_peers"), cond.get("mix_window_seconds"),
                                      cond.get("mix_warm_seconds")))
        L.append("")
        L.append("| kind | connections | in training (window) | in latency bands (window) "
                 "| in training (from start) | in latency (from start) | qdisc bytes (window) "
                 "| generator payload bytes (whole run) |")
        L.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for k, r in mix.items():
            w, h = r["window"], r["whole"]
            def pc(v):
                return "n/a" if v is None else "%.2f %%" % (v * 100)
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                k, fmt(r.get("connections")),
                pc(w["training_frac"]), pc(w["latency_frac"]),
                pc(h["training_frac"]), pc(h["latency_frac"]),
                w["latency_bytes"] + w["training_bytes"], fmt(r.get("generator_bytes"))))
        L.append("")
    byp = cost.get("bypass", {})
    if byp:
        L.append("Per-packet cost, bypass allowed (the contender as root of the dummy "
                 "device; pfifo and fq_codel set TCQ_F_CAN_BYPASS and skip enqueue and "
                 "dequeue on an empty queue there; fq, ets, cake and aiclass do not), median "
                 "(min-max) of %s runs:" % cond.get("pktgen_bypass_reps", cond.get("pktgen_reps")))
        L.append("")
        L.append("| contender | kpps 16 flows | kpps 1000 | kpps 10000 | CPU ns/packet 16 / 1000 / 10000 |")
        L.append("| --- | --- | --- | --- | --- |")
        for n in pgnames:
            e = byp.get(n, {})
            L.append("| %s | %s | %s | %s | %s |" % (
                n, *[spread(e.get(f), "pps", 1000) for f in FLOWS],
                " / ".join(fmt(e.get(f, {}).get("ns_median"), 0) for f in FLOWS)))
        L.append("")
    if mem or flowstate:
        L.append("Memory: per-flow state (sizeof per slot, from BTF / debug info; "
                 "cake: its flow struct only; fq: a slab object per live flow) and the "
                 "drop in the guest's MemFree from before the qdisc was added to "
                 "its lowest while pktgen ran 10000 flows (approximate; noise of a few MB):")
        L.append("")
        L.append("| qdisc | per-flow state | peak memory at 10000 flows |")
        L.append("| --- | --- | --- |")
        for n in pgnames or mem:
            fs = flowstate.get(n)
            m = mem.get(n)
            L.append("| %s | %s | %s |" % (
                n, "%d B (%s)" % (fs["bytes"], fs["struct"]) if fs else "none counted",
                "%.0f KB" % (sum(m) / len(m)) if m else "n/a"))
        L.append("")
    return "\n".join(L)


def plots(out, rows, raw_lat, pps, pgnames):
    pgnames = [n for n in pgnames if n in pps]
    if not shutil.which("gnuplot"):
        print("report: no gnuplot, no plots", file=sys.stderr)
        return
    tmp = tempfile.mkdtemp()
    term = "set terminal pngcairo size 800,480 font 'sans,9'\n"
    # latency CDFs
    plot = []
    for n in rows:
        if n not in MAIN or not raw_lat.get(n):
            continue
        f = os.path.join(tmp, n + ".cdf")
        v = raw_lat[n]
        with open(f, "w") as fh:
            for i, x in enumerate(v):
                fh.write("%.3f %.5f\n" % (x, (i + 1) / len(v)))
        plot.append("'%s' using 1:2 with lines lw 2 dt %d title '%s'" % (
            f, 1 + len(plot) // 8, n.replace("_", "\\_")))
    if plot:
        gp = term + ("set output '%s'\nset logscale x\nset grid\n"
                     "set xlabel 'RPC completion time under load, ms (log)'\n"
                     "set ylabel 'fraction of RPCs'\nset key bottom right\n"
                     "set title 'Inference RPC latency under training load'\n"
                     "plot " % os.path.join(out, "rpc_cdf.png")) + ", ".join(plot) + "\n"
        run_gnuplot(gp)
    # goodput bars
    f = os.path.join(tmp, "goodput.dat")
    with open(f, "w") as fh:
        for n, r in rows.items():
            fh.write("%s %.2f %.2f %.1f\n" % (n.replace("_", "\\\\_"),
                                              r["collective_mbit"] or 0,
                                              r["udp_mbit"] or 0,
                                              (r["link_util"] or 0) * 100))
    gp = term + ("set output '%s'\nset style data histograms\n"
                 "set style histogram rowstacked\nset style fill solid 0.8 border -1\n"
                 "set boxwidth 0.7\nset xtics rotate by -35\nset grid y\n"
                 "set ylabel 'training goodput, Mbit/s'\nset key outside top center horizontal\n"
                 "set title 'Training goodput (collective + UDP 4791) per contender'\n"
                 "set yrange [0:*]\n"
                 "plot '%s' using 2:xtic(1) title 'collective (TCP)', "
                 "'' using 3 title 'UDP elephant'\n") % (
                     os.path.join(out, "goodput.png"), f)
    run_gnuplot(gp)
    # pps vs flows
    plot = []
    for n in pgnames:
        f = os.path.join(tmp, n + ".pps")
        with open(f, "w") as fh:
            for fl in FLOWS:
                if pps[n].get(fl):
                    fh.write("%d %d\n" % (fl, pps[n][fl]))
        plot.append("'%s' using 1:2 with linespoints lw 2 title '%s'" % (
            f, n.replace("_", "\\_")))
    if plot:
        gp = term + ("set output '%s'\nset logscale x\nset grid\n"
                     "set xlabel 'concurrent flows (log)'\nset ylabel 'packets per second'\n"
                     "set yrange [0:*]\nset key bottom left\n"
                     "set title 'pktgen queue\\_xmit into dummy, contender as child of prio (no bypass)'\n"
                     "plot " % os.path.join(out, "pps.png")) + ", ".join(plot) + "\n"
        run_gnuplot(gp)
    shutil.rmtree(tmp)


def run_gnuplot(script):
    r = subprocess.run(["gnuplot"], input=script, text=True,
                       capture_output=True)
    if r.returncode:
        print("report: gnuplot: " + r.stderr.strip(), file=sys.stderr)


if __name__ == "__main__":
    main()
