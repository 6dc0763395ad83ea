#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftests/bench_quick.sh - keep `make bench` working: its BENCH_QUICK=1
# smoke run (every phase, a few seconds each) end to end in this guest, and
# the results folder it writes.  Nothing measured is asserted: under TCG a
# few seconds of traffic mean nothing.
. "$(dirname "$0")/lib.sh"

bench_out=/tmp/aiclass-bench-quick
contenders="pfifo_fast fq_codel cake cake_diffserv4 ets prio aiclass aiclass_hints aiclass_rate"

test_runs() {
	rm -rf "$bench_out"
	AICLASS_BENCH_QUICK=1 AICLASS_BENCH_OUT=$bench_out "$TOP/tools/bench/bench.sh" \
		>"$bench_out.log" 2>&1 || { tail -n 30 "$bench_out.log"; fail "bench.sh exited $?"; }
	tail -n 5 "$bench_out.log"
}

test_table() {
	local c
	[ -s "$bench_out/bench.md" ] || fail "no bench.md"
	for c in $contenders; do
		grep -q "^| $c |" "$bench_out/bench.md" || fail "no row for $c in bench.md"
	done
	grep -q "per-flow state <= 64 bytes: \*\*" "$bench_out/bench.md" ||
		fail "no targets in bench.md"
	echo "bench.md: $(grep -c '^| ' "$bench_out/bench.md") table lines"
}

test_raw() {
	python3 - "$bench_out" "$contenders" <<'EOF' || fail "bench.json/bench.csv incomplete"
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
assert set(d["drr"]) == {"aiclass", "ets"}, "DRR shares missing"
for c in ("pfifo_fast", "fq_codel", "aiclass"):
    assert all(d["pps"][c].get(str(f)) or d["pps"][c].get(f)
               for f in (16, 1000, 10000)), "%s: pktgen rates missing" % c
assert len(list(csv.DictReader(open(sys.argv[1] + "/bench.csv")))) >= len(want)
print("bench.json: %d rows, %d targets" % (len(rows), len(d["targets"])))
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

ktap_plan 4
aiclass_load
require_cmd iperf3 python3
run_case "make bench (BENCH_QUICK=1) runs end to end" test_runs
run_case "bench.md has a row for every contender and the targets" test_table
run_case "bench.json and bench.csv hold every contender's numbers" test_raw
run_case "the plots are written" test_plots
ktap_finish
