#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn make bench's raw measurements into the results folder.

usage: report.py RAW_DIR OUT_DIR

Writes OUT_DIR/bench.md (tables and the aiclass targets, met or not),
bench.csv (one row per contender), bench.json (everything, with the
conditions) and, when gnuplot is there, rpc_cdf.png, goodput.png and
pps.png.  Prints bench.md.
"""
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

MAIN = ["pfifo_fast", "fq_codel", "cake", "cake_diffserv4", "ets", "prio",
        "aiclass", "aiclass_hints", "aiclass_rate"]
SMALL = 1024            # responses up to this many bytes: "small" RPCs
FLOWS = [16, 1000, 10000]


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


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt(v, nd=2):
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return "%.*f" % (nd, v)
    return str(v)


def main():
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
        if win and link.get("collective_bytes"):
            co["mbit"] = link["collective_bytes"] * 8 / win / 1e6
        pi = sockperf(os.path.join(d, "idle.ping"))
        pl = sockperf(os.path.join(d, "loaded.ping"))
        try:
            args = open(os.path.join(d, "qdisc.args")).read().strip()
        except OSError:
            args = ""
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
            "qdisc_stats": load(os.path.join(d, "qdisc.json")),
        }

    # DRR shares, weights 1:2:4
    drr = {}
    for n in ("aiclass", "ets"):
        d = os.path.join(raw, "drr_" + n)
        got = [tcp_mbit(load(os.path.join(d, "%d.json" % p)))
               for p in (5301, 5302, 5303)]
        if None in got or not sum(got):
            continue
        shares = [g / sum(got) for g in got]
        want = [1 / 7, 2 / 7, 4 / 7]
        err = [s / w - 1 for s, w in zip(shares, want)]
        drr[n] = {"mbit": got, "shares": shares, "want": want,
                  "error": err, "max_abs_error": max(abs(e) for e in err)}

    # pktgen: best of the repetitions
    pps = {}
    try:
        for line in open(os.path.join(raw, "pktgen.txt")):
            n, flows, _, v = line.split()
            key = pps.setdefault(n, {})
            key[int(flows)] = max(key.get(int(flows), 0), int(v))
    except OSError:
        pass
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
    if "cake" in flowstate:
        flowstate.setdefault("cake_diffserv4", flowstate["cake"])
    for n, r in rows.items():
        for f in FLOWS:
            r["pps_%d" % f] = pps.get(n, {}).get(f)
    pgnames = list(pps)

    # targets (aiclass with defaults and no hints)
    a, fq = rows.get("aiclass", {}), rows.get("fq_codel", {})
    targets = []

    def target(what, ok, measured):
        targets.append({"target": what, "met": ok, "measured": measured})

    target("RPC p99 under load <= 1.2x idle p99",
           a.get("p99_x_idle") is not None and a["p99_x_idle"] <= 1.2,
           "RPC bursts %s x, ping-pong %s x; fq_codel %s x / %s x, cake %s x / %s x, "
           "pfifo_fast %s x / %s x" % (
               fmt(a.get("p99_x_idle")), fmt(a.get("ping_p99_x_idle")),
               fmt(fq.get("p99_x_idle")), fmt(fq.get("ping_p99_x_idle")),
               fmt(rows.get("cake", {}).get("p99_x_idle")),
               fmt(rows.get("cake", {}).get("ping_p99_x_idle")),
               fmt(rows.get("pfifo_fast", {}).get("p99_x_idle")),
               fmt(rows.get("pfifo_fast", {}).get("ping_p99_x_idle"))))
    g = ratio(a.get("training_mbit"), fq.get("training_mbit"))
    target("training goodput >= 0.97x fq_codel's", g is not None and g >= 0.97,
           "%s x (%s vs %s Mbit/s)" % (fmt(g), fmt(a.get("training_mbit"), 1),
                                       fmt(fq.get("training_mbit"), 1)))
    target("link utilisation >= 95%",
           a.get("link_util") is not None and a["link_util"] >= 0.95,
           "%s %%" % fmt((a.get("link_util") or 0) * 100, 1))
    de = drr.get("aiclass", {}).get("max_abs_error")
    target("DRR shares within +-5% of weights", de is not None and de <= 0.05,
           "max error %s %% (ets %s %%)" % (
               fmt(de * 100 if de is not None else None, 1),
               fmt(drr["ets"]["max_abs_error"] * 100 if "ets" in drr else None, 1)))
    target("Jain's index across the collective's flows >= 0.99",
           a.get("jain") is not None and a["jain"] >= 0.99,
           "%s (min step %s)" % (fmt(a.get("jain"), 3), fmt(a.get("jain_min"), 3)))
    pa, pf = pps.get("aiclass", {}), pps.get("fq_codel", {})
    rel = [ratio(pa.get(f), pf.get(f)) for f in FLOWS]
    target("packets per second >= 0.9x fq_codel's at 16, 1000, 10000 flows",
           None not in rel and min(rel) >= 0.9,
           " / ".join(fmt(x) for x in rel) + " x")
    own = ratio(pa.get(16), pa.get(10000))
    target("own cost at 10000 flows <= 1.2x that at 16", own is not None and own <= 1.2,
           "%s x" % fmt(own))
    fs = flowstate.get("aiclass", {}).get("bytes")
    target("per-flow state <= 64 bytes", fs is not None and fs <= 64,
           "%s bytes" % fmt(fs))

    result = {"conditions": cond, "rows": list(rows.values()), "drr": drr,
              "pps": pps, "memory_kb": mem, "flow_state": flowstate,
              "targets": targets}
    with open(os.path.join(out, "bench.json"), "w") as f:
        json.dump(result, f, indent=1, default=str)
    cols = [k for k in next(iter(rows.values()), {}) if k != "qdisc_stats"]
    with open(os.path.join(out, "bench.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in rows.values():
            w.writerow({k: (round(v, 4) if isinstance(v, float) else v)
                        for k, v in r.items()})

    md = markdown(cond, rows, drr, pps, pgnames, mem, flowstate, targets)
    with open(os.path.join(out, "bench.md"), "w") as f:
        f.write(md)
    print(md)
    plots(out, rows, raw_lat, pps, pgnames)


def markdown(cond, rows, drr, pps, pgnames, mem, flowstate, targets):
    L = []
    L.append("Conditions: %s guest, %s vCPUs, kernel %s; HTB bottleneck %s Mbit/s "
             "(unshaped path carries %s Mbit/s), netem %s on the return path, "
             "idle RTT %s ms; %s; commit %s.%s" % (
                 cond.get("accel"), cond.get("vcpus"), cond.get("kernel"),
                 cond.get("rate_mbit"), fmt(cond.get("unshaped_mbit"), 0),
                 cond.get("delay"), cond.get("rtt_ms"), cond.get("date"),
                 cond.get("commit"),
                 " QUICK smoke run: numbers mean nothing." if cond.get("quick") else ""))
    best = max((r["link_util"] or 0 for r in rows.values()), default=0)
    if rows and best < 0.9:
        L.append("")
        L.append("**Warning: no contender got the link past %.0f %%: the emulated "
                 "CPU, not the bottleneck, limited this run, so goodput and "
                 "utilisation compare CPU cost more than scheduling.**" % (best * 100))
        L.append("")
    L.append("Load: %s TCP flows in lock-step, %d KB each per step, + UDP "
             "elephant to 4791 at %s Mbit/s, %s s; RPCs (200 B requests, "
             "256 B-32 KB responses, Poisson bursts of 1-6 at 20 per second) timed for %s s "
             "loaded and %s s idle, with a sockperf TCP ping-pong (200 B, 100 per "
             "second); link, training and CPU counted over a %s s window." % (
                 cond.get("collective_flows"), cond.get("step_bytes", 0) // 1024,
                 cond.get("udp_mbit"), cond.get("seconds"),
                 cond.get("rpc_seconds"), cond.get("idle_seconds"),
                 cond.get("window_seconds")))
    L.append("")
    L.append("| contender | RPC p50 / p99 / p99.9 loaded, ms | RPC p99 idle, ms "
             "| RPC p99 x idle | ping-pong p99 loaded / idle, ms | ping p99 x idle "
             "| training Mbit/s | link util "
             "| step p50, s | Jain | guest CPU | pps 16 / 1k / 10k flows |")
    L.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows.values():
        p = [r.get("pps_%d" % f) for f in FLOWS]
        L.append("| %s | %s / %s / %s | %s | %s | %s / %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["contender"], fmt(r["rpc_p50_ms"]), fmt(r["rpc_p99_ms"]),
            fmt(r["rpc_p999_ms"]), fmt(r["idle_p99_ms"]),
            fmt(r["p99_x_idle"], 1), fmt(r["ping_p99_ms"]),
            fmt(r["ping_idle_p99_ms"]), fmt(r["ping_p99_x_idle"], 1),
            fmt(r["training_mbit"], 1),
            "%s %%" % fmt((r["link_util"] or 0) * 100, 1),
            fmt(r["step_p50_s"], 3), fmt(r["jain"], 3),
            "%s %%" % fmt((r["cpu_busy"] or 0) * 100, 0),
            " / ".join("%.0fk" % (v / 1000) if v else "-" for v in p)))
    L.append("")
    L.append("Qdisc arguments: " + "; ".join(
        "%s = `%s`" % (r["contender"], r["qdisc"]) for r in rows.values()) +
        ". aiclass_hints adds tc filters: RPC responses (tcp sport 7000) to "
        "1:1, the collective (tcp dport 7100) to 1:11, the UDP elephant to 1:12. "
        "aiclass_rate is root with its own shaper instead of the HTB.")
    L.append("")
    if drr:
        L.append("DRR shares, three classes weighted 1:2:4 (two TCP streams each):")
        L.append("")
        L.append("| qdisc | Mbit/s per class | shares | error vs weight |")
        L.append("| --- | --- | --- | --- |")
        for n, d in drr.items():
            L.append("| %s | %s | %s | %s |" % (
                n, " / ".join(fmt(x, 1) for x in d["mbit"]),
                " / ".join("%.3f" % s for s in d["shares"]),
                " / ".join("%+.1f %%" % (e * 100) for e in d["error"])))
        L.append("")
    if mem or flowstate:
        L.append("Memory: per-flow state (sizeof per slot, from BTF / debug info; "
                 "cake: its flow struct only) and the "
                 "drop in the guest's MemFree from before the qdisc was added to "
                 "its lowest while pktgen ran 10000 flows (approximate, mean of runs):")
        L.append("")
        L.append("| qdisc | per-flow state | peak memory at 10000 flows |")
        L.append("| --- | --- | --- |")
        for n in pgnames or mem:
            fs = flowstate.get(n)
            m = mem.get(n)
            L.append("| %s | %s | %s |" % (
                n, "%d B (%s)" % (fs["bytes"], fs["struct"]) if fs else "none",
                "%.0f KB" % (sum(m) / len(m)) if m else "n/a"))
        L.append("")
    L.append("aiclass targets (defaults, no hints):")
    L.append("")
    for t in targets:
        L.append("- %s: **%s** (%s)" % (t["target"], "met" if t["met"] else "not met",
                                        t["measured"]))
    L.append("")
    return "\n".join(L)


def plots(out, rows, raw_lat, pps, pgnames):
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
                     "set title 'pktgen queue\\_xmit into dummy, contender as root'\n"
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
