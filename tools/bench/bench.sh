#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tools/bench/bench.sh - `make bench`: aiclass against pfifo_fast, fq_codel,
# cake, ets and prio at the same shaped bottleneck under the same AI
# traffic, side by side in one run of the test bed.
#
# On the host it boots the guest (tools/vm/run) and runs itself there.  The
# dumbbell of selftests/lib.sh: HTB at $RATE_MBIT on the router's egress
# with each contender as its leaf (aiclass also as root with its own
# `rate`), netem $DELAY on the return path.  Per contender:
#   idle:     RPC bursts (tools/bench/rpc.py) and a sockperf ping-pong
#             alone, the latency floor;
#   loaded:   a collective of $COLL_FLOWS TCP flows in lock-step
#             (tools/bench/collective.py) + a UDP elephant to port 4791 at a
#             quarter of the link (iperf3), and the same probes, timed;
# then DRR shares against weights 1:2:4 (aiclass, ets; iperf3), and the
# CPU cost per packet: pktgen queue_xmit into a dummy device with the
# contender as root at 16, 1000 and 10000 flows.  tools/bench/report.py
# turns the raw numbers into $OUT/bench.{md,csv,json} and PNG plots.
#
# BENCH_QUICK=1 (AICLASS_BENCH_QUICK=1 in the guest): a short smoke run of
# every phase, written to results/quick (not committed) unless
# AICLASS_BENCH_OUT says otherwise; it times nothing it could assert.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
quick=${AICLASS_BENCH_QUICK:-${BENCH_QUICK:-}}
[ "$quick" != 0 ] || quick=
if [ -z "${AICLASS_VM:-}" ]; then
	export AICLASS_BENCH_QUICK=$quick
	exec "$top/tools/vm/run" -t "$([ -n "$quick" ] && echo 600 || echo 2700)" -- \
		tools/bench/bench.sh "$@"
fi
# shellcheck source=../../selftests/lib.sh
. "$top/selftests/lib.sh"
TOOL=bench
# shellcheck source=lib.sh
. "$top/tools/bench/lib.sh"
bench=$top/tools/bench

RATE_MBIT=${AICLASS_BENCH_RATE_MBIT:-40}
DELAY=${AICLASS_BENCH_DELAY:-2ms}
COLL_FLOWS=${AICLASS_BENCH_FLOWS:-8}
COLL_STEP=${AICLASS_BENCH_STEP:-524288}
UDP_MBIT=$((RATE_MBIT / 4))
if [ -n "$quick" ]; then
	SECS=${AICLASS_BENCH_SECONDS:-5}
	IDLE_SECS=2
	DRR_SECS=2
	PG_COUNT=10000
	PG_REPS=1
	OUT=${AICLASS_BENCH_OUT:-$top/results/quick}
else
	SECS=${AICLASS_BENCH_SECONDS:-20}
	IDLE_SECS=8
	DRR_SECS=10
	PG_COUNT=${AICLASS_BENCH_PKTGEN_COUNT:-200000}
	PG_REPS=2
	OUT=${AICLASS_BENCH_OUT:-$top/results}
fi
WARM=2				# seconds of training before anything is counted
WIN=$((SECS - WARM - 1))	# the counting window
RPC_SECS=$((WIN - 1))		# the probes' own run (they take a while to start)
PING_PORT=11111
RPC_PORT=7000
COLL_PORT=7100
ROCE_PORT=4791
raw=/tmp/aiclass-bench
rm -rf "$raw"
mkdir -p "$raw" "$OUT"

need_cmds iperf3 sockperf python3 ethtool ss
need_aiclass
log() {
	echo "bench: $*" >&2
}
started=$(date +%s)

# --------------------------------------------------------- contenders ----
# NAME|QDISC ARGS: the leaf of the HTB bottleneck, handle 1:.
contenders=(
	"pfifo_fast|pfifo_fast"
	"fq_codel|fq_codel"
	"cake|cake besteffort"
	"cake_diffserv4|cake diffserv4"
	"ets|ets quanta 1514 3028 6056"
	"prio|prio"
	"aiclass|aiclass"
	"aiclass_hints|aiclass train_classes 2"
	"aiclass_rate|aiclass rate ${RATE_MBIT}mbit"
)
# The auto-classification defaults, one changed at a time (full run only).
sweep=(
	"aiclass_idle_200us|aiclass idle 200us"
	"aiclass_idle_20ms|aiclass idle 20ms"
	"aiclass_idle_500ms|aiclass idle 500ms"
	"aiclass_elephant_64kb|aiclass elephant 64kb"
	"aiclass_elephant_1mb|aiclass elephant 1mb"
)
[ -n "$quick" ] || contenders+=("${sweep[@]}")

# hints NAME: what the application would tell the qdisc: aiclass_hints
# puts the RPCs' responses in 1:1, the collective in 1:11 and the RoCEv2
# elephant in 1:12 with tc filters.
hints() {
	[ "$1" = aiclass_hints ] || return 0
	local f="dut_tc filter add dev $DUT_DEV parent 1: protocol ip"
	$f prio 1 flower ip_proto tcp src_port $RPC_PORT classid 1:1
	$f prio 2 flower ip_proto tcp dst_port $COLL_PORT classid 1:11
	$f prio 3 flower ip_proto udp dst_port $ROCE_PORT classid 1:12
}

# contender_install NAME ARGS...: the contender where the qdisc under test goes; the
# _rate row replaces the HTB with aiclass as root, shaping by itself.
contender_install() {
	local name=$1
	shift
	if [ "$name" = aiclass_rate ]; then
		dut_tc qdisc del dev "$DUT_DEV" root 2>/dev/null || true
		DUT_PARENT=root
	elif [ "$DUT_PARENT" = root ]; then
		dut_tc qdisc del dev "$DUT_DEV" root 2>/dev/null || true
		dut_tc qdisc add dev "$DUT_DEV" root handle 100: htb default 1
		dut_tc class add dev "$DUT_DEV" parent 100: classid 100:1 \
			htb rate "${RATE_MBIT}mbit" ceil "${RATE_MBIT}mbit" quantum 1514
		DUT_PARENT="parent 100:1"
	fi
	# shellcheck disable=SC2068
	dut_qdisc $@ || die "cannot install $*"
	hints "$name"
}

# ---------------------------------------------------------- counters -----
tx_bytes() {
	ns_exec "$RTR" cat "/sys/class/net/$DUT_DEV/statistics/tx_bytes"
}
# cpu_ticks: "busy total" jiffies of the guest, all CPUs.
cpu_ticks() {
	awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i
		print t - $5 - $6, t }' /proc/stat
}

# ------------------------------------------------- path capacity check ----
# The emulated CPU must not be the bottleneck: what the same path carries
# with no shaper at all, with the same offloads off.
log "path capacity without a shaper (pfifo, iperf3 -P $COLL_FLOWS, 4 s)"
dumbbell_setup -d "$DELAY" -o || die "dumbbell setup failed"
start_server "$RCV" 5201 tcp iperf3 -s -p 5201
ns_exec "$SND" iperf3 -c "$RCV_IP" -p 5201 -P "$COLL_FLOWS" -t 4 -J \
	>"$raw/capacity.json" || die "iperf3 failed on the unshaped path"
log "unshaped path: $(iperf3_mbit "$raw/capacity.json") Mbit/s"
lib_cleanup
set -e
LIB_DEFERRED=()
LIB_NETNS=()

# ------------------------------------------------------------ the load ----
dumbbell_setup -r "${RATE_MBIT}mbit" -d "$DELAY" -o || die "dumbbell setup failed"
start_server "$SND" $RPC_PORT tcp python3 "$bench/rpc.py" server --port $RPC_PORT
start_server "$RCV" $COLL_PORT tcp python3 "$bench/collective.py" server --port $COLL_PORT
start_server "$RCV" $ROCE_PORT tcp iperf3 -s -p $ROCE_PORT
start_server "$RCV" $PING_PORT tcp sockperf server --tcp -i "$RCV_IP" -p $PING_PORT
for p in 5301 5302 5303; do
	start_server "$RCV" $p tcp iperf3 -s -p $p
done
ping_ms=$(ns_exec "$SND" ping -c 5 -i 0.2 -q "$RCV_IP" |
	sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p')
log "idle RTT through the dumbbell: ${ping_ms} ms"

rpc_client() {
	ns_exec "$RCV" python3 "$bench/rpc.py" client --dst "$SND_IP" \
		--port $RPC_PORT "$@"
}
# ping_pong SECS OUT: the small-RPC probe the brief's numbers came from:
# sockperf TCP ping-pong, 200 B each way, 100 per second, every one timed.
ping_pong() {
	ns_exec "$SND" sockperf ping-pong --tcp -i "$RCV_IP" -p $PING_PORT -m 200 \
		--mps 100 --full-rtt -t "$1" >"$2" 2>&1
}
# coll_rx_bytes: payload bytes the receiver has read from the collective,
# per connection: "PEER=BYTES,..." ("-" for none).  The window is counted
# per connection, not as a difference of sums: a connection of the previous
# contender's collective that closes inside the window must not count.
coll_rx_bytes() {
	ns_exec "$RCV" ss -tinH state established "( sport = :$COLL_PORT )" |
		awk '/^[0-9]/ { peer = $4; next }
		     { for (i = 1; i <= NF; i++) if (sub(/^bytes_received:/, "", $i))
				out = out (out ? "," : "") peer "=" $i }
		     END { print out ? out : "-" }'
}
# sample: "tx_bytes collective cpu_busy cpu_total seconds" now, the
# collective field as coll_rx_bytes prints it.
sample() {
	echo "$(tx_bytes) $(coll_rx_bytes) $(cpu_ticks) $(date +%s.%N)"
}

# run_contender NAME ARGS...: the idle probes, then the loaded run.  Link,
# training and CPU are counted over one window of $WIN seconds, from
# $WARM s after the training started, while the probes run.
run_contender() {
	local name=$1 d=$raw/$1 coll udp rpc ping s0 s1
	shift
	mkdir -p "$d"
	log "$name: $* (idle ${IDLE_SECS}s, loaded ${SECS}s)"
	contender_install "$name" "$@"
	echo "$*" >"$d/qdisc.args"
	ping_pong "$IDLE_SECS" "$d/idle.ping" &
	ping=$!
	rpc_client --duration "$IDLE_SECS" --seed 2 --out "$d/idle.json" ||
		die "$name: idle RPC probe failed"
	wait "$ping" || echo "$name: idle ping-pong failed" >&2

	ns_exec "$SND" python3 "$bench/collective.py" client --dst "$RCV_IP" \
		--port $COLL_PORT --flows "$COLL_FLOWS" --step "$COLL_STEP" \
		--duration "$((SECS + 2))" --out "$d/coll.json" &
	coll=$!
	udp_elephant "$SND" "$RCV_IP" $ROCE_PORT "$UDP_MBIT" "$((SECS + 2))" "$d/udp.json" \
		--get-server-output &
	udp=$!
	sleep "$WARM"
	rpc_client --duration "$RPC_SECS" --seed 3 --out "$d/loaded.json" &
	rpc=$!
	ping_pong "$RPC_SECS" "$d/loaded.ping" &
	ping=$!
	s0=$(sample)
	sleep "$WIN"
	s1=$(sample)
	wait "$rpc" || echo "$name: loaded RPC probe failed" >&2
	wait "$ping" || echo "$name: loaded ping-pong failed" >&2
	wait "$coll" || echo "$name: collective failed" >&2
	wait "$udp" || echo "$name: UDP elephant failed" >&2
	python3 -c 'import json, sys
def conns(field):
    return dict(c.rsplit("=", 1) for c in field.split(",") if "=" in c)
a, b = sys.argv[1].split(), sys.argv[2].split()
c0, c1 = conns(a.pop(1)), conns(b.pop(1))
a, b = [float(x) for x in a], [float(x) for x in b]
coll = sum(int(v) - int(c0.get(k, 0)) for k, v in c1.items())
json.dump({"tx_bytes": b[0] - a[0], "collective_bytes": coll,
           "collective_conns": [len(c0), len(c1)],
           "cpu_busy": (b[1] - a[1]) / max(1, b[2] - a[2]), "window": b[3] - a[3],
           "window_start": float(sys.argv[3])}, open(sys.argv[4], "w"))' \
		"$s0" "$s1" "$WARM" "$d/link.json"
	dut_tc -s -j qdisc show dev "$DUT_DEV" >"$d/qdisc.json" 2>/dev/null || true
	dut_tc -s qdisc show dev "$DUT_DEV" >"$d/qdisc.txt"
	dut_tc -s class show dev "$DUT_DEV" >"$d/class.txt" 2>&1 || true
}

for c in "${contenders[@]}"; do
	# shellcheck disable=SC2086
	run_contender "${c%%|*}" ${c#*|}
done
# Back to the HTB for what follows.
[ "$DUT_PARENT" != root ] || contender_install pfifo_fast pfifo_fast

# -------------------------------------------------------- DRR shares ----
# Three classes weighted 1:2:4, two TCP streams each, all backlogged.
drr_share() {
	local name=$1 d=$raw/drr_$1 p pids=() i=0 f="dut_tc filter add dev $DUT_DEV parent 1: protocol ip"
	shift 2
	mkdir -p "$d"
	log "DRR shares 1:2:4: $name (${DRR_SECS}s)"
	# shellcheck disable=SC2068
	dut_qdisc $@ || die "cannot install $*"
	for p in 5301 5302 5303; do
		$f prio $((i + 1)) flower ip_proto tcp dst_port $p classid "${classes[i]}"
		i=$((i + 1))
	done
	for p in 5301 5302 5303; do
		ns_exec "$SND" iperf3 -c "$RCV_IP" -p $p -P 2 -t "$DRR_SECS" -J \
			>"$d/$p.json" &
		pids+=($!)
	done
	wait "${pids[@]}" || echo "drr $name: iperf3 failed" >&2
	dut_tc -s class show dev "$DUT_DEV" >"$d/class.txt" 2>&1 || true
}
classes=(1:11 1:12 1:13)
drr_share aiclass -- aiclass train_classes 3 weights 1 2 4
classes=(1:1 1:2 1:3)
drr_share ets -- ets quanta 1514 3028 6056

# ---------------------------------------------- CPU cost per packet ----
# pktgen builds UDP packets with $flows source ports in turn and hands
# them to dev_queue_xmit (xmit_mode queue_xmit): the contender as root of
# a dummy device enqueues and dequeues every one.  Best of $PG_REPS.
modprobe pktgen || die "no pktgen module"
modprobe dummy || die "no dummy module"
ip link del pg0 2>/dev/null || true
ip link add pg0 type dummy
ip link set pg0 txqueuelen 1000 up
ip addr add 10.200.0.1/24 dev pg0
defer ip link del pg0
pgset() {
	echo "$2" >"/proc/net/pktgen/$1"
}
pktgen_pps() {
	local flows=$1
	pgset kpktgend_0 rem_device_all
	pgset kpktgend_0 "add_device pg0"
	pgset pg0 "count $PG_COUNT"
	pgset pg0 "pkt_size 64"
	pgset pg0 "clone_skb 0"
	pgset pg0 "burst 1"
	pgset pg0 "delay 0"
	pgset pg0 "xmit_mode queue_xmit"
	pgset pg0 "dst 10.200.0.2"
	pgset pg0 "dst_mac 02:00:00:00:00:02"
	pgset pg0 "udp_dst_min 9"
	pgset pg0 "udp_dst_max 9"
	pgset pg0 "udp_src_min 10000"
	pgset pg0 "udp_src_max $((10000 + flows))"
	pgset pgctrl start
	sed -n 's/^ *\([0-9]*\)pps.*/\1/p' /proc/net/pktgen/pg0
}
memfree_kb() {
	awk '/^MemFree:/ { print $2 }' /proc/meminfo
}
pg_contenders=(
	"pfifo_fast|pfifo_fast"
	"fq_codel|fq_codel"
	"cake|cake besteffort"
	"cake_diffserv4|cake diffserv4"
	"ets|ets quanta 1514 3028 6056"
	"prio|prio"
	"aiclass|aiclass"
)
: >"$raw/pktgen.txt"
: >"$raw/memory.txt"
log "pktgen queue_xmit into a dummy device, $PG_COUNT packets per run, best of $PG_REPS"
for ((rep = 1; rep <= PG_REPS; rep++)); do
	for c in "${pg_contenders[@]}"; do
		name=${c%%|*}
		tc qdisc del dev pg0 root 2>/dev/null || true
		sync
		sleep 0.3
		m0=$(memfree_kb)
		# shellcheck disable=SC2086
		tc qdisc add dev pg0 root handle 1: ${c#*|} || die "cannot install $c on pg0"
		for flows in 16 1000 10000; do
			if [ "$flows" = 10000 ]; then
				# Lowest MemFree while the 10000 flows run.
				( min=$m0; while :; do m=$(memfree_kb)
					[ "$m" -ge "$min" ] || { min=$m; echo "$min" >"$raw/memmin"; }
					sleep 0.05; done ) &
				mw=$!
				echo "$m0" >"$raw/memmin"
			fi
			pps=$(pktgen_pps "$flows")
			echo "$name $flows $rep ${pps:-0}" >>"$raw/pktgen.txt"
			log "  $name $flows flows: ${pps:-?} pps"
		done
		kill "$mw" 2>/dev/null || true
		wait "$mw" 2>/dev/null || true
		echo "$name $rep $((m0 - $(cat "$raw/memmin")))" >>"$raw/memory.txt"
	done
done
tc qdisc del dev pg0 root 2>/dev/null || true

# -------------------------------------------------- per-flow state ----
# Bytes per flow slot: sizeof the flow struct (from BTF for the kernel's
# qdiscs, from our module's debug info) plus the arrays allocated beside it
# per slot: aiclass's hash tag, fq_codel's backlog (a u32).  cake keeps
# more per queue than its struct (tags, backlogs, overflow heap, hosts);
# only the struct is counted for it.  Lines: "NAME BYTES WHAT".
flow_state() {	# NAME BYTES WHAT
	[ -n "$2" ] && echo "$1 $2 $3"
}
{
	tag='sizeof(((struct aiclass_sched_data *)0)->tags[0])'
	flow_state aiclass "$(gdb -batch -ex "print sizeof(struct aiclass_flow) + $tag" \
		"$AICLASS_KO" 2>/dev/null | sed -n 's/^\$1 = //p')" "struct aiclass_flow + u32 tag"
	fq=$(python3 "$bench/btfsize.py" fq_codel_flow sch_fq_codel)
	flow_state fq_codel "${fq:+$((fq + 4))}" "struct fq_codel_flow + u32 backlog"
	flow_state cake "$(python3 "$bench/btfsize.py" cake_flow sch_cake)" "struct cake_flow"
} >"$raw/flowstate.txt" 2>/dev/null || true

# ---------------------------------------------------------- the report ----
cat >"$raw/conditions.json" <<EOF
{"rate_mbit": $RATE_MBIT, "delay": "$DELAY", "rtt_ms": "${ping_ms:-}",
 "seconds": $SECS, "idle_seconds": $IDLE_SECS, "rpc_seconds": $RPC_SECS, "window_seconds": $WIN,
 "drr_seconds": $DRR_SECS, "collective_flows": $COLL_FLOWS,
 "step_bytes": $COLL_STEP, "udp_mbit": $UDP_MBIT, "pktgen_count": $PG_COUNT,
 "pktgen_reps": $PG_REPS, "quick": $([ -n "$quick" ] && echo true || echo false),
 "kernel": "$(uname -r)", "accel": "$( [ "${AICLASS_KVM:-0}" = 1 ] && echo KVM || echo TCG)",
 "vcpus": $(nproc), "date": "$(date -u +%Y-%m-%d)",
 "commit": "$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)",
 "bench_seconds": $(($(date +%s) - started))}
EOF
python3 "$bench/report.py" "$raw" "$OUT"
log "done in $(($(date +%s) - started))s; results in $OUT"
