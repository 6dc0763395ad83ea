#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tools/demo.sh - what `make demo` shows: AI training and inference traffic
# sharing one shaped bottleneck, through pfifo_fast, fq_codel and aiclass,
# side by side: the inference RPCs' latency and, beside it, what training
# pays for it (goodput, its TCP flows' RTT, aiclass's class sojourn).
#
# Runs inside the test bed (on the host it boots it: tools/vm/run).  The
# dumbbell of selftests/lib.sh with GSO/TSO on, TCP cubic without ECN, HTB
# at $AICLASS_DEMO_RATE_MBIT on the router's egress with the qdisc under
# test as its leaf, 5 ms back to the sender.
#   training:  4 TCP bulk streams (iperf3 -P 4) + a UDP elephant to port
#              4791 (RoCEv2's port) at a quarter of the link
#   inference: small RPCs (sockperf ping-pong, 200 B, 50 per second, each
#              RPC timed: round trip of request and reply)
# After 5 s of warm-up the bulk streams' smoothed RTT (`ss -tin` on the
# sender) and the classes' sojourn are sampled once a second.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "${AICLASS_VM:-}" ]; then
	exec "$top/tools/vm/run" -t 400 -- tools/demo.sh "$@"
fi
# shellcheck source=../selftests/lib.sh
. "$top/selftests/lib.sh"
TOOL=demo
# shellcheck source=bench/lib.sh
. "$top/tools/bench/lib.sh"

RATE_MBIT=${AICLASS_DEMO_RATE_MBIT:-40}
SECS=${AICLASS_DEMO_SECONDS:-30}
UDP_MBIT=$((RATE_MBIT / 4))
out=/tmp/aiclass-demo
mkdir -p "$out"

need_aiclass
need_cmds iperf3 sockperf python3

dumbbell_setup -r "${RATE_MBIT}mbit" -d 5ms || die "dumbbell setup failed"
tcp_plain "$SND" "$RCV"
start_server "$RCV" 5201 tcp iperf3 -s -p 5201
start_server "$RCV" 4791 tcp iperf3 -s -p 4791
start_server "$RCV" 11111 tcp sockperf server --tcp -i "$RCV_IP" -p 11111

# run_load KIND: training and inference together through KIND; results in
# $out/KIND.{tcp,udp}.json and $out/KIND.rpc.
run_load() {
	local kind=$1 tcp udp smp
	echo "demo: ${SECS}s of training + inference through $kind at ${RATE_MBIT} Mbit/s"
	dut_qdisc "$kind" || die "cannot install $kind on the bottleneck"
	ns_exec "$SND" iperf3 -c "$RCV_IP" -p 5201 -P 4 -t "$SECS" -J \
		>"$out/$kind.tcp.json" &
	tcp=$!
	udp_elephant "$SND" "$RCV_IP" 4791 "$UDP_MBIT" "$SECS" "$out/$kind.udp.json" &
	udp=$!
	sleep 5	# let the queue build
	mkdir -p "$out/$kind"
	sampler $((SECS - 7)) "$out/$kind" 5201 &
	smp=$!
	ns_exec "$SND" sockperf ping-pong --tcp -i "$RCV_IP" -p 11111 -m 200 \
		--mps 50 --full-rtt -t $((SECS - 7)) >"$out/$kind.rpc" 2>&1 ||
		echo "demo: sockperf failed under $kind" >&2
	wait "$smp" || true
	wait "$tcp" "$udp" || echo "demo: iperf3 failed under $kind" >&2
	dut_tc -s qdisc show dev "$DUT_DEV" >"$out/$kind.qdisc"
	dut_tc -s class show dev "$DUT_DEV" parent 1: >"$out/$kind.class" 2>&1 || true
}

kinds="pfifo_fast fq_codel aiclass"
for k in $kinds; do
	run_load "$k"
done

# rpc_ms KIND PCT: the RPC round-trip percentile from sockperf, in ms.
rpc_ms() {
	sed -n "s/.*percentile $2\.000 = *\([0-9.]*\).*/\1/p" "$out/$1.rpc" |
		awk '{ printf "%.2f", $1 / 1000 } END { if (!NR) printf "n/a" }'
}
rpc_count() {
	sed -n 's/.*SentMessages=\([0-9]*\).*/\1/p' "$out/$1.rpc" | head -n 1 | grep . || echo n/a
}
mbit() {
	iperf3_mbit "$1" 2>/dev/null || echo n/a
}
udp_mbit() {
	iperf3_udp_goodput "$1" 2>/dev/null || echo n/a
}
# sojourn KIND CLASS: "avg / max" ms of an aiclass class, median of the
# samples of sojourn_avg and the last sojourn_max; "-" for other qdiscs.
sojourn() {
	python3 -c '
import statistics, sys
sys.path.insert(0, sys.argv[3])
from report import parse_classes
avg, mx = [], None
for text in open(sys.argv[1]).read().split("@@ "):
    for c in parse_classes(text):
        if c["class"] == "aiclass" and c["handle"] == sys.argv[2] and "sojourn_avg" in c:
            avg.append(c["sojourn_avg"] / 1e6)
            mx = (c.get("sojourn_max") or 0) / 1e6
print("%.1f / %.1f" % (statistics.median(avg), mx) if avg else "-")' \
		"$out/$1/class.samples" "$2" "$top/tools/bench"
}
# row LABEL FUNC ARGS...: one line of the table, FUNC KIND ARGS... per kind.
row() {
	local label=$1 f=$2 k
	shift 2
	printf '%-36s' "$label"
	for k in $kinds; do
		printf ' %14s' "$("$f" "$k" "$@")"
	done
	echo
}
rtt() {
	rtt_summary "$out/$1/rtt.txt" | tr ' ' /
}
tcp_mb() {
	echo "$(mbit "$out/$1.tcp.json") Mb"
}
udp_mb() {
	echo "$(udp_mbit "$out/$1.udp.json") Mb"
}

echo
echo "aiclass demo: ${RATE_MBIT} Mbit/s bottleneck (HTB), 5 ms return delay, ${SECS}s per run"
printf '%-36s' ""
for k in $kinds; do
	printf ' %14s' "$k"
done
echo
row "inference RPC round trip p50 (ms)" rpc_ms 50
row "inference RPC round trip p99 (ms)" rpc_ms 99
row "inference RPCs sent" rpc_count
row "training TCP goodput, 4 streams" tcp_mb
row "training UDP 4791 goodput" udp_mb
row "training TCP RTT p50/p90 (ms)" rtt
row "training class 1:11 sojourn avg/max" sojourn 1:11
row "latency band 1:1 sojourn avg/max" sojourn 1:1
echo
echo "tc -s qdisc show (aiclass run):"
sed 's/^/  /' "$out/aiclass.qdisc"
echo
echo "tc -s class show (aiclass run):"
sed 's/^/  /' "$out/aiclass.class"

[ "$(rpc_ms aiclass 50)" != n/a ] || die "no RPC completed through aiclass"
