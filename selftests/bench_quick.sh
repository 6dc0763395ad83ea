#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftests/bench_quick.sh - keep `make bench` working: its BENCH_QUICK=1
# smoke run (every phase, a few seconds each) end to end in this guest, and
# the results folder it writes.  No timing is asserted (under TCG a few
# seconds of traffic mean nothing); one behaviour is: the accuracy phase's
# share of each kind's bytes in training and latency classes.
. "$(dirname "$0")/lib.sh"

bench_out=/tmp/aiclass-bench-quick
contenders="fq_codel aiclass aiclass_hints aiclass_rate"
# fq has priority bands from Linux 6.7
[ "$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')" -lt 6007 ] ||
	contenders="$contenders fq_hints"

test_runs() {
	rm -rf "$bench_out"
	AICLASS_BENCH_QUICK=1 AICLASS_BENCH_OUT=$bench_out "$TOP/tools/bench/bench.sh" \
		>"$bench_out.log" 2>&1 || { tail -n 30 "$bench_out.log"; fail "bench.sh exited $?"; }
	# each phase, with the seconds since the start: what the run's time
	# goes to
	grep '^bench: \[' "$bench_out.log"
}

test_table() {
	local c
	[ -s "$bench_out/bench.md" ] || fail "no bench.md"
	for c in $contenders; do
		grep -q "^| $c |" "$bench_out/bench.md" || fail "no row for $c in bench.md"
	done
	grep -q "per-flow state <= 80 bytes: \*\*" "$bench_out/bench.md" ||
		fail "no targets in bench.md"
	echo "bench.md: $(grep -c '^| ' "$bench_out/bench.md") table lines"
}

test_raw() {
	local traced=0
	command -v bpftrace >/dev/null && traced=1
	python3 - "$bench_out" "$contenders" "$traced" <<'EOF' || fail "bench.json/bench.csv incomplete"
import csv, json, sys
d = json.load(open(sys.argv[1] + "/bench.json"))
rows = {r["contender"]: r for r in d["rows"]}
want = sys.argv[2].split()
missing = [c for c in want if c not in rows]
assert not missing, "no rows for %s" % missing
for c in want:
    r = rows[c]
    assert r["rpc_n"], "%s: no RPC completed under load" % c
    assert r["steps"], "%s: no collective step completed" % c
    assert r["training_mbit"] > 0, "%s: no training goodput (collective %s, UDP %s Mbit/s)" % (
        c, r["collective_mbit"], r["udp_mbit"])
    assert r["train_rtt_n"], "%s: no RTT sample of the collective" % c
    if c.startswith("aiclass"):
        assert r["train_sojourn_avg_ms"] is not None, "%s: no training class sojourn" % c
# the per-packet qdisc delay (tools/bench/qdelay.bt), traced for aiclass
# alone in the quick run: every traffic kind seen, percentiles in order
if sys.argv[3] == "1":
    qd = rows["aiclass"].get("qdelay") or {}
    for kind in ("inference RPC responses", "ping-pong", "training TCP", "RoCEv2 UDP"):
        e = qd.get(kind, {})
        for w in ("sojourn", "head"):
            v = e.get(w) or {}
            assert v.get("n"), "aiclass: no %s %s delay traced (%s)" % (kind, w, sorted(qd))
            assert v["p50"] <= v["p99"] <= v["p999"], "aiclass %s %s: %s" % (kind, w, v)
        assert e["head"]["p99"] <= e["sojourn"]["p99"], "aiclass %s: head > sojourn" % kind
assert set(d["drr"]) == {"aiclass", "ets"}, "DRR shares missing"
# the SLO phase: aiclass with and without `slo`, each response timed.
# (Reordering is counted, not asserted: under two vCPUs the qdisc runs on
# either CPU, and veth hands each packet to the backlog of the CPU that
# sent it, so the receiver can see the order change after the qdisc; the
# deterministic runs, one vCPU, are where the count is read.)
slo = d["slo"]["points"]
assert set(slo) == {"aiclass_slo", "aiclass"}, "SLO phase rows: %s" % sorted(slo)
for c, pts in slo.items():
    assert pts and all(x["responses"] > 0 and x["whole"] > 0 for x in pts), \
        "%s: no response timed in the SLO phase: %s" % (c, pts)
    assert all("reordered" in x for x in pts), pts
for how in ("fair", "bypass"):
    for c in ("pfifo", "fq_codel", "fq", "aiclass", "aiclass_codel"):
        e = d["cost"][how].get(c, {})
        assert all((e.get(str(f)) or e.get(f) or {}).get("pps_median")
                   for f in (16, 1000, 10000)), "%s %s: pktgen rates missing" % (how, c)
assert len(list(csv.DictReader(open(sys.argv[1] + "/bench.csv")))) >= len(want)
print("bench.json: %d rows, %d targets" % (len(rows), len(d["targets"])))
EOF
}

# The accuracy phase, defaults and no hints, over its window: at least 95 %
# of the NCCL-like bytes in training classes and of the gRPC-like RPC bytes
# in latency bands (make bench's own target is 99 %).
test_accuracy() {
	python3 - "$bench_out" <<'EOF' || fail "classification accuracy below 95 %"
import json, sys
acc = json.load(open(sys.argv[1] + "/bench.json"))["accuracy"]
ok = True
for kind, side in (("nccl", "training_frac"), ("rpc", "latency_frac"), ("short", "latency_frac")):
    w = acc[kind]["window"]
    v = w[side]
    print("%s: %s of %d bytes in %s" % (kind, "n/a" if v is None else "%.2f %%" % (v * 100),
          w["latency_bytes"] + w["training_bytes"], side.split("_")[0]))
    if kind != "short" and (v is None or v < 0.95):
        ok = False
sys.exit(0 if ok else 1)
EOF
}

test_plots() {
	local p
	require_cmd gnuplot
	for p in rpc_cdf goodput pps; do
		[ -s "$bench_out/$p.png" ] || fail "no $p.png"
	done
	echo "plots: $(cd "$bench_out" && ls ./*.png | tr '\n' ' ')"
}

ktap_plan 5
aiclass_load
require_cmd iperf3 python3
run_case "make bench (BENCH_QUICK=1) runs end to end" test_runs
run_case "bench.md has a row for every contender and the targets" test_table
run_case "bench.json and bench.csv hold every contender's numbers" test_raw
run_case "accuracy: >= 95 % of NCCL-like bytes in training, of RPC bytes in latency bands" test_accuracy
run_case "the plots are written" test_plots
ktap_finish
