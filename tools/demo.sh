#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tools/demo.sh - what `make demo` shows: AI training and inference traffic
# sharing one shaped bottleneck, first through pfifo_fast, then through
# aiclass, side by side.
#
# Runs inside the test bed (on the host it boots it: tools/vm/run).  The
# dumbbell of selftests/lib.sh, HTB at $AICLASS_DEMO_RATE on the router's
# egress with the qdisc under test as its leaf, 5 ms back to the sender.
#   training:  4 TCP bulk streams (iperf3 -P 4) + a UDP elephant to port
#              4791 (RoCEv2's port) at a quarter of the link
#   inference: small RPCs (sockperf ping-pong, 200 B, 50 per second, each
#              RPC timed: round trip of request and reply)
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
SECS=${AICLASS_DEMO_SECONDS:-20}
UDP_MBIT=$((RATE_MBIT / 4))
out=/tmp/aiclass-demo
mkdir -p "$out"

need_aiclass
need_cmds iperf3 sockperf python3

dumbbell_setup -r "${RATE_MBIT}mbit" -d 5ms -o || die "dumbbell setup failed"
start_server "$RCV" 5201 tcp iperf3 -s -p 5201
start_server "$RCV" 4791 tcp iperf3 -s -p 4791
start_server "$RCV" 11111 tcp sockperf server --tcp -i "$RCV_IP" -p 11111

# run_load KIND: training and inference together through KIND; results in
# $out/KIND.{tcp,udp}.json and $out/KIND.rpc.
run_load() {
	local kind=$1 tcp udp
	echo "demo: ${SECS}s of training + inference through $kind at ${RATE_MBIT} Mbit/s"
	dut_qdisc "$kind" || die "cannot install $kind on the bottleneck"
	ns_exec "$SND" iperf3 -c "$RCV_IP" -p 5201 -P 4 -t "$SECS" -J \
		>"$out/$kind.tcp.json" &
	tcp=$!
	udp_elephant "$SND" "$RCV_IP" 4791 "$UDP_MBIT" "$SECS" "$out/$kind.udp.json" &
	udp=$!
	sleep 3	# let the queue build
	ns_exec "$SND" sockperf ping-pong --tcp -i "$RCV_IP" -p 11111 -m 200 \
		--mps 50 --full-rtt -t $((SECS - 6)) >"$out/$kind.rpc" 2>&1 ||
		echo "demo: sockperf failed under $kind" >&2
	wait "$tcp" "$udp" || echo "demo: iperf3 failed under $kind" >&2
	dut_tc -s qdisc show dev "$DUT_DEV" >"$out/$kind.qdisc"
	dut_tc -s class show dev "$DUT_DEV" parent 1: >"$out/$kind.class" 2>&1 || true
}

run_load pfifo_fast
run_load aiclass

# rpc_ms KIND PCT: the RPC round-trip percentile from sockperf, in ms.
rpc_ms() {
	sed -n "s/.*percentile $2\.000 = *\([0-9.]*\).*/\1/p" "$out/$1.rpc" |
		awk '{ printf "%.2f", $1 / 1000 } END { if (!NR) printf "n/a" }'
}
rpc_count() {
	sed -n 's/.*SentMessages=\([0-9]*\).*/\1/p' "$out/$1.rpc" | head -n 1
}
mbit() {
	iperf3_mbit "$1" 2>/dev/null || echo n/a
}
udp_mbit() {
	iperf3_udp_goodput "$1" 2>/dev/null || echo n/a
}

echo
echo "aiclass demo: ${RATE_MBIT} Mbit/s bottleneck (HTB), 5 ms return delay, ${SECS}s per run"
printf '%-34s %14s %14s\n' "" pfifo_fast aiclass
printf '%-34s %14s %14s\n' "inference RPC round trip p50 (ms)" \
	"$(rpc_ms pfifo_fast 50)" "$(rpc_ms aiclass 50)"
printf '%-34s %14s %14s\n' "inference RPC round trip p99 (ms)" \
	"$(rpc_ms pfifo_fast 99)" "$(rpc_ms aiclass 99)"
printf '%-34s %14s %14s\n' "inference RPCs sent" \
	"$(rpc_count pfifo_fast)" "$(rpc_count aiclass)"
printf '%-34s %14s %14s\n' "training TCP goodput, 4 streams" \
	"$(mbit "$out/pfifo_fast.tcp.json") Mb" "$(mbit "$out/aiclass.tcp.json") Mb"
printf '%-34s %14s %14s\n' "training UDP 4791 goodput" \
	"$(udp_mbit "$out/pfifo_fast.udp.json") Mb" "$(udp_mbit "$out/aiclass.udp.json") Mb"
echo
echo "tc -s qdisc show (aiclass run):"
sed 's/^/  /' "$out/aiclass.qdisc"
echo
echo "tc -s class show (aiclass run):"
sed 's/^/  /' "$out/aiclass.class"

[ "$(rpc_ms aiclass 50)" != n/a ] || die "no RPC completed through aiclass"
