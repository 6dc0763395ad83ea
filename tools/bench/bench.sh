#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tools/bench/bench.sh - `make bench`: aiclass against pfifo_fast, fq_codel,
# cake, ets, prio and fq at the same shaped bottleneck under the same AI
# traffic, side by side in one run of the test bed.
#
# On the host it boots the guest (tools/vm/run) and runs itself there.  The
# dumbbell of selftests/lib.sh with GSO/TSO/GRO on, TCP cubic without ECN:
# HTB at $RATE_MBIT on the router's egress with each contender as its leaf
# (aiclass also as root with its own `rate`), netem $DELAY on the return
# path.  Phases:
#   latency SLO: UDP responses with DSCP 46 at 50-200 % of what aiclass's
#     1:1 carries beside 4 bulk TCP flows, aiclass with and without `slo`
#     and the peers, each response timed at the receiver;
#   latency and training, per contender:
#     idle:   RPC bursts (tools/bench/rpc.py) and a sockperf ping-pong
#             alone, the latency floor;
#     loaded: a collective of $COLL_FLOWS TCP flows in lock-step
#             (tools/bench/collective.py) + a UDP elephant to port 4791 at
#             a quarter of the link (iperf3), and the same probes; after
#             $WARM s of warm-up, $WIN s counted: link and training bytes,
#             the collective's smoothed RTT (`ss -tin` on the sender, once
#             a second), every class's sojourn (`tc -s class show`) and
#             each packet's delay in the qdisc tree (tools/bench/qdelay.bt);
#   DRR: three classes weighted 1:2:4 (aiclass, ets), class bytes counted
#     over $DRR_WIN s after $WARM s;
#   accuracy: NCCL-like, gRPC-like and short-connection traffic at once,
#     each kind through its own default aiclass under one HTB (see
#     docs/benchmark.md): the share of each kind's bytes in training and
#     latency classes;
#   cost: pktgen queue_xmit into a dummy device, the contender as the child
#     of a prio band (nobody bypasses), and as root (bypass allowed), at
#     16, 1000 and 10000 flows, $PG_REPS interleaved runs; a perf profile;
#     per-flow state from BTF and the module's debug info;
#   then, in guests of their own, the instruction profile (guest
#     instructions per packet in each contender's own functions, counted
#     by QEMU: tools/bench/insn-profile).
# tools/bench/report.py turns the raw numbers into $OUT/bench.{md,csv,json},
# PNG plots and $OUT/perf_aiclass.txt.
#
# BENCH_QUICK=1 (AICLASS_BENCH_QUICK=1 in the guest): a short smoke run of
# every phase, written to results/quick (not committed) unless
# AICLASS_BENCH_OUT says otherwise; it times nothing it could assert.
# AICLASS_BENCH_SWEEP=1 adds rows with one auto-classification default
# changed at a time.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
quick=${AICLASS_BENCH_QUICK:-${BENCH_QUICK:-}}
[ "$quick" != 0 ] || quick=
if [ -z "${AICLASS_VM:-}" ]; then
	export AICLASS_BENCH_QUICK=$quick
	# Deterministic guest time (icount, one vCPU; docs/testing.md):
	# AICLASS_VM_DETERMINISTIC=0 runs it under plain TCG, 2 vCPUs.  Under
	# icount a loaded guest second takes about 3 s of wall time here, so
	# the limits are twice TCG's (the full run has not been timed so).
	"$top/tools/vm/run" -D -t "$([ -n "$quick" ] && echo 1800 || echo 7200)" -- \
		tools/bench/bench.sh "$@"
	# the instruction profile: more guest boots, not in the quick run (a
	# count that repeats exactly: AICLASS_BENCH_INSN=0 leaves it out)
	[ -n "$quick" ] || [ "${AICLASS_BENCH_INSN:-1}" = 0 ] ||
		[ "${AICLASS_BENCH_ONLY:-}" = slo ] ||
		"$top/tools/bench/insn-profile" "${AICLASS_BENCH_OUT:-$top/results}"
	exit
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
# The HTB bottleneck's burst: 3 ms of the rate (15 KB at 40 Mbit/s).  tc's
# default is one MTU, which banks one packet's time (0.3 ms at 40 Mbit/s):
# enough on hardware, whose timers fire within microseconds, but under TCG
# they fire late (the guest logs hrtimer interrupts of 0.17 ms), and the
# link lost 4-14 % of its capacity, most for the contenders that queue MTU
# packets (aiclass and cake split GSO packets below 1 Gbit/s) -- see
# docs/benchmark.md.
HTB_BURST=$((RATE_MBIT * 1000 * 3 / 8))
HTB_RATE="rate ${RATE_MBIT}mbit ceil ${RATE_MBIT}mbit burst $HTB_BURST cburst $HTB_BURST"
if [ -n "$quick" ]; then
	WARM=2
	WIN=${AICLASS_BENCH_SECONDS:-4}
	IDLE_SECS=2
	MIX_WARM=3
	MIX_WIN=8
	PG_COUNT=10000
	PG_REPS=1
	PG_BYPASS_REPS=1
	OUT=${AICLASS_BENCH_OUT:-$top/results/quick}
else
	WARM=${AICLASS_BENCH_WARM:-8}	# fills the buffers: not counted
	WIN=${AICLASS_BENCH_SECONDS:-20}	# counted, in steady state
	IDLE_SECS=$((WIN - 1))	# as long as the loaded probes: as many samples
	MIX_WARM=8
	MIX_WIN=${AICLASS_BENCH_SECONDS:-20}
	PG_COUNT=${AICLASS_BENCH_PKTGEN_COUNT:-200000}
	# Under plain TCG a single pktgen run moves by up to 25 %: 9 paired
	# runs.  In guest time a run is a count and repeats to within a
	# fraction of a per cent: 3 show that.
	if [ "${AICLASS_VM_DETERMINISTIC:-0}" = 1 ]; then
		PG_REPS=${AICLASS_BENCH_PKTGEN_REPS:-3}
		PG_BYPASS_REPS=${AICLASS_BENCH_PKTGEN_BYPASS_REPS:-1}
	else
		PG_REPS=${AICLASS_BENCH_PKTGEN_REPS:-9}
		PG_BYPASS_REPS=${AICLASS_BENCH_PKTGEN_BYPASS_REPS:-3}
	fi
	OUT=${AICLASS_BENCH_OUT:-$top/results}
fi
SECS=$((WARM + WIN + 1))	# the training load's run
LOAD_SECS=$((SECS + 4))		# it outlasts the window: the last sample can be late
RPC_SECS=$((WIN - 1))		# the probes' own run (they take a while to start)
RPC_SEED=3			# idle and loaded: the same RPCs, so their p99 compare
PING_PORT=11111
RPC_PORT=7000
COLL_PORT=7100
SHORT_PORT=7200
ROCE_PORT=4791
MIX_PEERS=2			# accuracy: NCCL-like servers, 7100 and 7101
raw=/tmp/aiclass-bench
rm -rf "$raw"
mkdir -p "$raw" "$OUT"

need_cmds iperf3 sockperf python3 ethtool ss
need_aiclass
started=$(date +%s)
# log MESSAGE: to stderr, after the seconds since the run started.
log() {
	echo "bench: [$(($(date +%s) - started))s] $*" >&2
}
kmaj=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
fq_bands=$([ "$kmaj" -ge 6007 ] && echo 1 || true)

# --------------------------------------------------------- contenders ----
# NAME|QDISC ARGS: the leaf of the HTB bottleneck, handle 1:.
# (the quick run leaves out what it has no separate code path for: a peer
# given by its name alone runs as fq_codel does)
contenders=()
[ -n "$quick" ] || contenders+=("pfifo_fast|pfifo_fast")
contenders+=("fq_codel|fq_codel")
[ -n "$quick" ] || contenders+=(
	"cake|cake besteffort"
	"cake_diffserv4|cake diffserv4"
	"ets|ets quanta 1514 3028 6056"
	"prio|prio"
	"fq|fq"
)
# The composition an expert builds from stock parts: ets with a strict band
# for inference and DRR bands for training, an fq_codel under every band
# (contender_install adds them), unhinted traffic in the last DRR band
# (priomap); without hints everything goes there, with hints (the same
# filters as aiclass_hints, below) RPC responses, the collective and the
# RoCEv2 elephant get a band each.
ETS_FQC="ets bands 4 strict 1 quanta 1514 1514 1514 priomap$(printf ' 3%.0s' {1..16})"
[ -n "$quick" ] || contenders+=("ets_fq_codel|$ETS_FQC")
contenders+=("ets_fq_codel_hints|$ETS_FQC")
# fq's three priority bands (Linux 6.7+) fed by the same hints as aiclass's.
[ -z "$fq_bands" ] || contenders+=("fq_hints|fq")
contenders+=(
	"aiclass|aiclass"
	"aiclass_hints|aiclass train_classes 2"
	"aiclass_rate|aiclass rate ${RATE_MBIT}mbit"
)
# The auto-classification defaults, one changed at a time (on request).
sweep=(
	"aiclass_idle_200us|aiclass idle 200us"
	"aiclass_idle_20ms|aiclass idle 20ms"
	"aiclass_elephant_64kb|aiclass elephant 64kb"
	"aiclass_elephant_1mb|aiclass elephant 1mb"
	"aiclass_forget_off|aiclass forget off"
)
[ -n "$quick" ] || [ "${AICLASS_BENCH_SWEEP:-0}" = 0 ] || contenders+=("${sweep[@]}")

# hints NAME: what the application would tell the qdisc.  aiclass_hints:
# tc filters put the RPCs' responses in 1:1, the collective in 1:11 and
# the RoCEv2 elephant in 1:12; ets_fq_codel_hints: the same filters to the
# strict band 1:1 and the DRR bands 1:2 and 1:3.  fq_hints: the same three as skb->priority
# (set by a clsact egress filter, as SO_PRIORITY would on a host) for fq's
# default priomap: 6 -> band 0 (weight 589824), 0 -> band 1 (196608),
# 2 -> band 2 (65536).
hints() {
	local f
	dut_tc qdisc del dev "$DUT_DEV" clsact 2>/dev/null || true
	case $1 in
	aiclass_hints)
		f="dut_tc filter add dev $DUT_DEV parent 1: protocol ip"
		$f prio 1 flower ip_proto tcp src_port $RPC_PORT classid 1:1
		$f prio 2 flower ip_proto tcp dst_port $COLL_PORT classid 1:11
		$f prio 3 flower ip_proto udp dst_port $ROCE_PORT classid 1:12
		;;
	ets_fq_codel_hints)
		f="dut_tc filter add dev $DUT_DEV parent 1: protocol ip"
		$f prio 1 flower ip_proto tcp src_port $RPC_PORT classid 1:1
		$f prio 2 flower ip_proto tcp dst_port $COLL_PORT classid 1:2
		$f prio 3 flower ip_proto udp dst_port $ROCE_PORT classid 1:3
		;;
	fq_hints)
		dut_tc qdisc add dev "$DUT_DEV" clsact
		f="dut_tc filter add dev $DUT_DEV egress protocol ip"
		$f prio 1 flower ip_proto tcp src_port $RPC_PORT action skbedit priority 6
		$f prio 2 flower ip_proto tcp dst_port $COLL_PORT action skbedit priority 0
		$f prio 3 flower ip_proto udp dst_port $ROCE_PORT action skbedit priority 2
		;;
	esac
}

# contender_install NAME ARGS...: the contender where the qdisc under test
# goes; the _rate row replaces the HTB with aiclass as root, shaping by itself.
contender_install() {
	local name=$1
	shift
	if [ "$name" = aiclass_rate ]; then
		dut_tc qdisc del dev "$DUT_DEV" root 2>/dev/null || true
		DUT_PARENT=root
	elif [ "$DUT_PARENT" = root ]; then
		dut_tc qdisc del dev "$DUT_DEV" root 2>/dev/null || true
		dut_tc qdisc add dev "$DUT_DEV" root handle 100: htb default 1
		# shellcheck disable=SC2086
		dut_tc class add dev "$DUT_DEV" parent 100: classid 100:1 htb $HTB_RATE
		DUT_PARENT="parent 100:1"
	fi
	# shellcheck disable=SC2068
	dut_qdisc $@ || die "cannot install $*"
	case $name in
	ets_fq_codel*)
		for b in 1 2 3 4; do
			dut_tc qdisc add dev "$DUT_DEV" parent 1:$b handle 2$b: fq_codel ||
				die "cannot add fq_codel under ets band 1:$b"
		done
		;;
	esac
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
# with no shaper at all, offloads on as in every phase.
log "path capacity without a shaper (pfifo, iperf3 -P $COLL_FLOWS, 4 s)"
dumbbell_setup -d "$DELAY" || die "dumbbell setup failed"
start_server "$RCV" 5201 tcp iperf3 -s -p 5201
ns_exec "$SND" iperf3 -c "$RCV_IP" -p 5201 -P "$COLL_FLOWS" -t 4 -J \
	>"$raw/capacity.json" || die "iperf3 failed on the unshaped path"
log "unshaped path: $(iperf3_mbit "$raw/capacity.json") Mbit/s"
lib_cleanup
set -e
LIB_DEFERRED=()
LIB_NETNS=()

# ------------------------------------------------------------ the load ----
dumbbell_setup -r "${RATE_MBIT}mbit" -b "$HTB_BURST" -d "$DELAY" || die "dumbbell setup failed"
tcp_plain "$SND" "$RCV"
for dev in "$SND:$SND_IF" "$RTR:$RTR_IN" "$RTR:$RTR_OUT" "$RCV:$RCV_IF"; do
	ns_exec "${dev%%:*}" ethtool -K "${dev#*:}" gso on tso on gro on >/dev/null 2>&1 || true
done
ns_exec "$SND" ethtool -k "$SND_IF" | grep -E '^(tcp-segmentation-offload|generic-segmentation-offload):' \
	>"$raw/offloads.txt" || true
# The timed probes (RPC servers and clients, sockperf) run at nice -20: on
# real machines they and the load generators are different hosts, here they
# share the guest's vCPUs (one in deterministic mode; two under plain TCG,
# busy 80-90 % under load there), and a probe that
# waits for a CPU times the guest's scheduler, not the qdisc.  Every
# contender gets the same.
PROBE_NICE="nice -n -20"
# shellcheck disable=SC2086
start_server "$SND" $RPC_PORT tcp $PROBE_NICE python3 "$bench/rpc.py" server --port $RPC_PORT
# shellcheck disable=SC2086
start_server "$SND" $SHORT_PORT tcp $PROBE_NICE python3 "$bench/rpc.py" server --port $SHORT_PORT
for ((p = 0; p < MIX_PEERS; p++)); do
	start_server "$RCV" $((COLL_PORT + p)) tcp python3 "$bench/collective.py" server \
		--port $((COLL_PORT + p))
done
start_server "$RCV" $ROCE_PORT tcp iperf3 -s -p $ROCE_PORT
# shellcheck disable=SC2086
start_server "$RCV" $PING_PORT tcp $PROBE_NICE sockperf server --tcp -i "$RCV_IP" -p $PING_PORT
for p in 5301 5302 5303; do
	start_server "$RCV" $p tcp iperf3 -s -p $p
done
ping_ms=$(ns_exec "$SND" ping -c 5 -i 0.2 -q "$RCV_IP" |
	sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p')
log "idle RTT through the dumbbell: ${ping_ms} ms"

# ------------------------------------------------------ latency SLO ----
# Inference demand past what a band can carry (Aequitas's case): 4 bulk
# TCP flows keep the training side full while UDP responses of 4 x 1400 B
# with DSCP 46 (selftests/rpcload.py: 32 flows, on a fixed schedule) are
# offered at each of $SLO_POINTS % of what aiclass's 1:1 can carry beside
# backlogged training (the link less train_share's 10 %).  aiclass puts
# DSCP 46 in 1:1 (dscpmap), once with `slo $SLO` on 1:1 and once without;
# the peers get the same traffic (cake diffserv4 puts DSCP 46 in its voice
# tin, whose priority holds for a quarter of the bandwidth cake is given:
# the link's, as no shaper below HTB's would give it any; the composition
# a flower filter in its strict band).  Each response
# is timed from its first datagram's send to its last's arrival
# (tools/bench/slosink.py); counted: the responses sent in $SLO_WIN s after
# $SLO_WARM s, how many arrived whole within $SLO_TARGET_MS ms.
SLO=5ms
SLO_TARGET_MS=10
SLO_PORT=9000
SLO_SIZE=1400
SLO_CAP=$((RATE_MBIT * 1000000 * 90 * SLO_SIZE / (8 * 100 * (SLO_SIZE + 42))))
if [ -n "$quick" ]; then
	SLO_POINTS="200" SLO_WARM=1 SLO_WIN=3
	slo_contenders=("aiclass_slo|aiclass dscpmap 46:1" "aiclass|aiclass dscpmap 46:1")
else
	SLO_POINTS="50 100 150 200" SLO_WARM=2 SLO_WIN=6
	slo_contenders=(
		"aiclass_slo|aiclass dscpmap 46:1"
		"aiclass|aiclass dscpmap 46:1"
		"fq_codel|fq_codel"
		"cake_diffserv4|cake diffserv4 bandwidth ${RATE_MBIT}mbit"
		"ets_fq_codel_dscp|$ETS_FQC"
	)
fi
log "latency SLO: responses at $SLO_POINTS % of $SLO_CAP B/s beside 4 bulk flows (${SLO_WARM}s + ${SLO_WIN}s each)"
for c in "${slo_contenders[@]}"; do
	name=${c%%|*} d=$raw/slo/${c%%|*}
	mkdir -p "$d"
	# shellcheck disable=SC2086
	contender_install "$name" ${c#*|}
	case $name in
	aiclass_slo)
		dut_tc class change dev "$DUT_DEV" classid 1:1 aiclass slo $SLO ||
			die "slo $SLO on 1:1 was refused" ;;
	ets_fq_codel_dscp)
		dut_tc filter add dev "$DUT_DEV" parent 1: protocol ip prio 1 flower \
			ip_tos 0xb8/0xfc classid 1:1 ;;
	esac
	echo "${c#*|}" >"$d/qdisc.args"
	bulk_secs=$((3 + $(echo "$SLO_POINTS" | wc -w) * (SLO_WARM + SLO_WIN + 3)))
	ns_exec "$SND" iperf3 -c "$RCV_IP" -p 5301 -P 4 -t "$bulk_secs" -J >"$d/bulk.json" &
	bulk=$!
	sleep 3
	for pct in $SLO_POINTS; do
		# shellcheck disable=SC2086
		ns_exec "$RCV" $PROBE_NICE python3 "$bench/slosink.py" --port $SLO_PORT \
			--seconds $((SLO_WARM + SLO_WIN + 2)) --out "$d/sink_$pct.json" &
		sink=$!
		sleep 0.5
		ns_exec "$SND" python3 "$top/selftests/rpcload.py" "$RCV_IP" $SLO_PORT \
			-r $((SLO_CAP * pct / 100)) -s $SLO_SIZE -b 4 -f 32 -t 0xb8 \
			-T $((SLO_WARM + SLO_WIN)) -o "$d/send_$pct.json" >/dev/null ||
			echo "slo $name: the load at $pct % failed" >&2
		wait "$sink" || echo "slo $name: the receiver at $pct % failed" >&2
		dut_tc -s class show dev "$DUT_DEV" >"$d/class_$pct.txt" 2>&1 || true
		log "  $name at $pct %: $(python3 "$bench/report.py" --slo-point "$d" "$pct" \
			$SLO_WARM $SLO_WIN $SLO_TARGET_MS)"
		sleep 0.5
	done
	wait "$bulk" || echo "slo $name: bulk flows failed" >&2
done
cat >"$raw/slo/conditions.json" <<EOC
{"slo": "$SLO", "target_ms": $SLO_TARGET_MS, "capacity_bytes": $SLO_CAP,
 "points": [${SLO_POINTS// /, }], "warm_seconds": $SLO_WARM,
 "window_seconds": $SLO_WIN, "size": $SLO_SIZE, "burst": 4, "flows": 32}
EOC
# AICLASS_BENCH_ONLY=slo: this phase alone, its raw numbers only.
if [ "${AICLASS_BENCH_ONLY:-}" = slo ]; then
	mkdir -p "$OUT/raw"
	rm -rf "$OUT/raw/slo"
	cp -r "$raw/slo" "$OUT/raw/"
	log "the SLO phase only: raw numbers in $OUT/raw/slo"
	exit 0
fi

rpc_client() {
	# shellcheck disable=SC2086
	ns_exec "$RCV" $PROBE_NICE python3 "$bench/rpc.py" client --dst "$SND_IP" "$@"
}
# ping_pong SECS OUT: the small-RPC probe: sockperf TCP ping-pong, 200 B
# each way, 100 per second, every one timed.
ping_pong() {
	# shellcheck disable=SC2086
	ns_exec "$SND" $PROBE_NICE sockperf ping-pong --tcp -i "$RCV_IP" -p $PING_PORT -m 200 \
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
# stamped CMD...: "TIME OUTPUT", TIME the middle of CMD's run (s).  Each
# counter carries its own time: under load a read in a namespace takes from
# a few hundred milliseconds to over a second here, and a rate taken over
# the times of other reads was off by up to 15 %.
stamped() {
	local t0=$EPOCHREALTIME out
	out=$("$@")
	echo "$(echo "$t0 $EPOCHREALTIME" | awk '{ printf "%.6f", ($1 + $2) / 2 }') $out"
}
# sample: "time tx_bytes time collective cpu_busy cpu_total" now, the
# collective field as coll_rx_bytes prints it.
sample() {
	echo "$(stamped tx_bytes) $(stamped coll_rx_bytes) $(cpu_ticks)"
}
# window_json S0 S1 OUT: link, collective and CPU over the window, each
# over the time between its own two reads.
window_json() {
	python3 -c 'import json, sys
def conns(field):
    return dict(c.rsplit("=", 1) for c in field.split(",") if "=" in c)
a, b = sys.argv[1].split(), sys.argv[2].split()
c0, c1 = conns(a.pop(3)), conns(b.pop(3))
a, b = [float(x) for x in a], [float(x) for x in b]
coll = sum(int(v) - int(c0.get(k, 0)) for k, v in c1.items())
json.dump({"tx_bytes": b[1] - a[1], "window": b[0] - a[0],
           "collective_bytes": coll, "collective_window": b[2] - a[2],
           "collective_conns": [len(c0), len(c1)],
           "cpu_busy": (b[3] - a[3]) / max(1, b[4] - a[4]),
           "window_start": float(sys.argv[3])}, open(sys.argv[4], "w"))' \
		"$1" "$2" "$WARM" "$3"
}

# qdelay_start: tools/bench/qdelay.bt on the bottleneck's device, once for
# the whole latency phase (its compile takes some seconds of the guest's one
# CPU), into $raw/qdelay.all, once its probes are attached.
# qdelay_mark start|end DIR: a window's bounds, as calls that reach no
# process; at the end the tracer prints the window's counts, which go to
# DIR/qdelay.txt.  qdelay_stop: the tracer ends.
qdelay_pid=
qdelay_windows=0
qdelay_start() {
	local i
	[ -n "$qdelay" ] || return 0
	# shellcheck disable=SC2086
	BPFTRACE_MAP_KEYS_MAX=32768 bpftrace "$bench/qdelay.bt" "$DUT_DEV" $qdelay \
		>"$raw/qdelay.all" 2>"$raw/qdelay.err" &
	qdelay_pid=$!
	for ((i = 0; i < 600; i++)); do
		grep -q '^Attaching' "$raw/qdelay.all" 2>/dev/null && return 0
		kill -0 "$qdelay_pid" 2>/dev/null || break
		sleep 0.1
	done
	log "bpftrace did not start: $(head -c 300 "$raw/qdelay.err")"
	kill "$qdelay_pid" 2>/dev/null || true
	qdelay_pid=
}
qdelay_mark() {
	local i
	[ -n "$qdelay_pid" ] || return 0
	if [ "$1" = start ]; then
		kill -0 -- -424242 2>/dev/null || true
		return 0
	fi
	kill -0 -- -424243 2>/dev/null || true
	qdelay_windows=$((qdelay_windows + 1))
	for ((i = 0; i < 300; i++)); do
		[ "$(grep -c '^qdelay window end' "$raw/qdelay.all")" -lt "$qdelay_windows" ] || break
		sleep 0.1
	done
	awk -v n="$qdelay_windows" '/^qdelay window end/ { w++; next } w == n - 1' \
		"$raw/qdelay.all" >"$2/qdelay.txt"
}
qdelay_stop() {
	[ -n "$qdelay_pid" ] || return 0
	kill -INT "$qdelay_pid" 2>/dev/null || true
	wait "$qdelay_pid" || true
	qdelay_pid=
}
# bpftrace needs tracefs; AICLASS_BENCH_QDELAY=0 leaves the trace out.
# $qdelay: the skb's offsets the script reads at (none: no trace)
qdelay=
if [ "${AICLASS_BENCH_QDELAY:-1}" != 0 ] && command -v bpftrace >/dev/null; then
	[ -d /sys/kernel/tracing/events ] || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
	[ ! -d /sys/kernel/tracing/events ] ||
		qdelay="$(python3 "$bench/btfsize.py" --offsets sk_buff head data len \
			network_header transport_header end) $(python3 "$bench/btfsize.py" \
			--offsets skb_shared_info gso_size gso_segs)" || qdelay=
	qdelay=$(echo "$qdelay" | tr -s '\n' ' ')
fi
[ -n "$qdelay" ] || log "no per-packet qdisc delay: bpftrace or tracefs missing"

# run_contender NAME ARGS...: the idle probes, then the loaded run.  After
# $WARM s of training, link, training, CPU, the collective's RTT and the
# classes' sojourn are counted over one window of $WIN s while the probes run.
run_contender() {
	local name=$1 d=$raw/$1 coll udp rpc ping smp s0 s1
	shift
	mkdir -p "$d"
	log "$name: $* (idle ${IDLE_SECS}s, loaded ${WARM}s + ${WIN}s)"
	contender_install "$name" "$@"
	echo "$*" >"$d/qdisc.args"
	ping_pong "$IDLE_SECS" "$d/idle.ping" &
	ping=$!
	rpc_client --port $RPC_PORT --duration "$IDLE_SECS" --seed "$RPC_SEED" --out "$d/idle.json" ||
		die "$name: idle RPC probe failed"
	wait "$ping" || echo "$name: idle ping-pong failed" >&2

	ns_exec "$SND" python3 "$bench/collective.py" client --dst "$RCV_IP" \
		--port $COLL_PORT --flows "$COLL_FLOWS" --step "$COLL_STEP" \
		--duration "$LOAD_SECS" --out "$d/coll.json" &
	coll=$!
	udp_elephant "$SND" "$RCV_IP" $ROCE_PORT "$UDP_MBIT" "$LOAD_SECS" "$d/udp.json" \
		--get-server-output &
	udp=$!
	sleep "$WARM"
	rpc_client --port $RPC_PORT --duration "$RPC_SECS" --seed "$RPC_SEED" --out "$d/loaded.json" &
	rpc=$!
	ping_pong "$RPC_SECS" "$d/loaded.ping" &
	ping=$!
	sampler "$WIN" "$d" $COLL_PORT &
	smp=$!
	qdelay_mark start
	s0=$(sample)
	sleep "$WIN"
	s1=$(sample)
	qdelay_mark end "$d"
	wait "$smp" || true
	wait "$rpc" || echo "$name: loaded RPC probe failed" >&2
	wait "$ping" || echo "$name: loaded ping-pong failed" >&2
	wait "$coll" || echo "$name: collective failed" >&2
	wait "$udp" || echo "$name: UDP elephant failed" >&2
	window_json "$s0" "$s1" "$d/link.json"
	dut_tc -s -j qdisc show dev "$DUT_DEV" >"$d/qdisc.json" 2>/dev/null || true
	dut_tc -s qdisc show dev "$DUT_DEV" >"$d/qdisc.txt"
	dut_tc -s class show dev "$DUT_DEV" >"$d/class.txt" 2>&1 || true
	log "  training RTT median/p90 $(rtt_summary "$d/rtt.txt") ms"
}

qdelay_start
mkdir -p "$OUT/raw"
for c in "${contenders[@]}"; do
	# shellcheck disable=SC2086
	run_contender "${c%%|*}" ${c#*|}
	# (outside the windows: a write to the checkout waits for the host)
	cp -r "$raw/${c%%|*}" "$OUT/raw/"
done
qdelay_stop
hints none
# Back to the HTB for what follows.
[ "$DUT_PARENT" != root ] || contender_install pfifo_fast pfifo_fast

# -------------------------------------------------------- DRR shares ----
# Three classes weighted 1:2:4, two TCP streams each, all backlogged; the
# classes' own byte counters over $WIN s after $WARM s of warm-up.
drr_share() {
	local name=$1 d=$raw/drr_$1 p pids=() i=0 f="dut_tc filter add dev $DUT_DEV parent 1: protocol ip"
	shift 2
	mkdir -p "$d"
	log "DRR shares 1:2:4: $name (${WARM}s + ${WIN}s)"
	# shellcheck disable=SC2068
	dut_qdisc $@ || die "cannot install $*"
	for p in 5301 5302 5303; do
		$f prio $((i + 1)) flower ip_proto tcp dst_port $p classid "${classes[i]}"
		i=$((i + 1))
	done
	for p in 5301 5302 5303; do
		ns_exec "$SND" iperf3 -c "$RCV_IP" -p $p -P 2 -t "$SECS" -J \
			>"$d/$p.json" &
		pids+=($!)
	done
	sleep "$WARM"
	dut_tc -s class show dev "$DUT_DEV" >"$d/class0.txt"
	sleep "$WIN"
	dut_tc -s class show dev "$DUT_DEV" >"$d/class1.txt"
	echo "${classes[*]}" >"$d/classes"
	wait "${pids[@]}" || echo "drr $name: iperf3 failed" >&2
	dut_tc -s class show dev "$DUT_DEV" >"$d/class.txt" 2>&1 || true
}
classes=(1:11 1:12 1:13)
drr_share aiclass -- aiclass train_classes 3 weights 1 2 4
classes=(1:1 1:2 1:3)
drr_share ets -- ets quanta 1514 3028 6056

# ---------------------------------------------------------- accuracy ----
# Three kinds of traffic at once, with defaults and no hints:
#   nccl:  $MIX_PEERS peers x 4 long-lived connections (ports 7100+),
#          512 KB per connection per step in 128 KB chunks, compute phases
#          of 5 ms to 1 s (log-uniform) between steps;
#   rpc:   gRPC-like: 32 persistent connections, Poisson bursts of 1-6
#          RPCs (think time), responses 256 B - 32 KB (port 7000);
#   short: a new connection per RPC, 10 bursts of 1-2 a second (port 7200).
# Every kind goes through an aiclass of its own, with defaults, under one
# HTB at the link rate (a class per kind, each guaranteed a third, all
# borrowing up to the whole link), chosen by port with HTB's filters: so
# each aiclass's class counters hold exactly one kind's bytes.  The auto
# route decides per flow from that flow's own bytes and gaps, so splitting
# the kinds does not change what it decides; what differs from one shared
# instance is the queueing between kinds (HTB's, not aiclass's latency
# first).  Counted over $MIX_WIN s after $MIX_WARM s (every NCCL connection
# has made its first step), and also from the start.
log "accuracy: NCCL-like, gRPC-like and short connections (${MIX_WARM}s + ${MIX_WIN}s)"
d=$raw/mix
mkdir -p "$d"
dut_tc qdisc del dev "$DUT_DEV" root 2>/dev/null || true
dut_tc qdisc add dev "$DUT_DEV" root handle 100: htb default 4
# shellcheck disable=SC2086
dut_tc class add dev "$DUT_DEV" parent 100: classid 100:10 htb $HTB_RATE
third=$((RATE_MBIT * 1000 / 3))
i=1
for kind in rpc short nccl other; do
	dut_tc class add dev "$DUT_DEV" parent 100:10 classid 100:$i htb rate "${third}kbit" \
		ceil "${RATE_MBIT}mbit" burst $HTB_BURST cburst $HTB_BURST
	if [ $kind = other ]; then
		dut_tc qdisc add dev "$DUT_DEV" parent 100:$i handle 1$i: pfifo
	else
		dut_tc qdisc add dev "$DUT_DEV" parent 100:$i handle 1$i: aiclass
	fi
	echo "$kind 1$i 100:$i" >>"$d/kinds"
	i=$((i + 1))
done
DUT_PARENT="parent 100:1"
f="dut_tc filter add dev $DUT_DEV parent 100: protocol ip prio 1 flower ip_proto tcp"
$f src_port $RPC_PORT classid 100:1
$f src_port $SHORT_PORT classid 100:2
$f dst_port $COLL_PORT-$((COLL_PORT + MIX_PEERS - 1)) classid 100:3
dut_tc -s class show dev "$DUT_DEV" >"$d/class_start.txt"
mix_secs=$((MIX_WARM + MIX_WIN))
ns_exec "$SND" python3 "$bench/collective.py" client --dst "$RCV_IP" --port $COLL_PORT \
	--peers $MIX_PEERS --flows 4 --step 524288 --chunk 131072 --gap-min 0.005 \
	--gap-max 1 --duration "$mix_secs" --out "$d/nccl.json" &
mixpids=($!)
rpc_client --port $RPC_PORT --duration "$mix_secs" --seed 4 --out "$d/rpc.json" &
mixpids+=($!)
rpc_client --port $SHORT_PORT --new-conn --rate 10 --burst 2 --duration "$mix_secs" \
	--seed 5 --out "$d/short.json" &
mixpids+=($!)
sleep "$MIX_WARM"
dut_tc -s class show dev "$DUT_DEV" >"$d/class0.txt"
sleep "$MIX_WIN"
dut_tc -s class show dev "$DUT_DEV" >"$d/class1.txt"
wait "${mixpids[@]}" || echo "accuracy: a generator failed" >&2
dut_tc -s class show dev "$DUT_DEV" >"$d/class_end.txt"
dut_tc -s qdisc show dev "$DUT_DEV" >"$d/qdisc.txt"

# ---------------------------------------------- CPU cost per packet ----
# pktgen builds UDP packets with $flows source ports in turn and hands
# them to dev_queue_xmit (xmit_mode queue_xmit) on a dummy device:
#   fair:   root prio, the contender as the child of band 1:2 (where
#           priority 0 goes), so nobody can take the empty-qdisc bypass
#           (TCQ_F_CAN_BYPASS is honoured only at the root) and all pay
#           the same parent;
#   bypass: the contender as root, as before (fq_codel, pfifo_fast and fq
#           skip their enqueue and dequeue on an empty queue there).
# $PG_REPS runs, interleaved (rep, flows, contender), the bypass placement
# in the first $PG_BYPASS_REPS of them; packets per second from pktgen and
# guest CPU ns per packet from pktgen's thread.  A single run's rate moves
# by up to +-25 % under TCG, mostly together with its neighbours': the
# report compares each run with fq_codel's of the same repetition and flow
# count (a few seconds apart) and takes the median of those ratios.
pg_setup
memfree_kb() {
	awk '/^MemFree:/ { print $2 }' /proc/meminfo
}
: >"$raw/pktgen.txt"
: >"$raw/memory.txt"
log "pktgen queue_xmit into a dummy device, $PG_COUNT packets per run, $PG_REPS runs ($PG_BYPASS_REPS with bypass)"
for ((rep = 1; rep <= PG_REPS; rep++)); do
	for flows in 16 1000 10000; do
		hows=fair
		[ "$rep" -gt "$PG_BYPASS_REPS" ] || hows="fair bypass"
		for how in $hows; do
			for c in "${cost_contenders[@]}"; do
				name=${c%%|*}
				# shellcheck disable=SC2086
				install_pg $how ${c#*|} || die "cannot install $c on pg0 ($how)"
				r=$(pktgen_run "$flows")
				echo "$how $name $flows $rep $r" >>"$raw/pktgen.txt"
				tc -s qdisc show dev pg0 >"$raw/pg_${how}_${name}_$flows.txt"
				log "  $how $name $flows flows: $r (pps, ns/packet)"
			done
		done
	done
done
# Peak memory at 10000 flows, fair placement, once per contender.
for c in "${cost_contenders[@]}"; do
	name=${c%%|*}
	tc qdisc del dev pg0 root 2>/dev/null || true
	sync
	sleep 0.3
	m0=$(memfree_kb)
	# shellcheck disable=SC2086
	install_pg fair ${c#*|}
	( min=$m0; while :; do m=$(memfree_kb)
		[ "$m" -ge "$min" ] || { min=$m; echo "$min" >"$raw/memmin"; }
		sleep 0.05; done ) &
	mw=$!
	echo "$m0" >"$raw/memmin"
	pktgen_run 10000 >/dev/null
	kill "$mw" 2>/dev/null || true
	wait "$mw" 2>/dev/null || true
	echo "$name 1 $((m0 - $(cat "$raw/memmin")))" >>"$raw/memory.txt"
done
# A profile of aiclass's own functions (cpu-clock: TCG has no PMU), one
# extra fair run each of aiclass and aiclass_codel at 1000 flows; not in
# deterministic time, where the work is a count (the instruction profile).
if [ -n "$quick" ] || [ "${AICLASS_VM_DETERMINISTIC:-0}" = 1 ]; then
	echo "perf: not run (deterministic guest time: see insn_profile.txt)" >"$raw/perf_aiclass.txt"
elif command -v perf >/dev/null; then
	for c in "aiclass|aiclass" "aiclass_codel|aiclass target 10us interval 100us"; do
		name=${c%%|*}
		# shellcheck disable=SC2086
		install_pg fair ${c#*|}
		# (a background job of a script ignores SIGINT: stop perf with TERM)
		timeout 120 perf record -q -e cpu-clock -a -g -o "$raw/perf_$name.data" \
			>/dev/null 2>"$raw/perf_$name.err" &
		pp=$!
		sleep 1
		pktgen_run 1000 >/dev/null
		kill -TERM "$pp" 2>/dev/null || true
		wait "$pp" 2>/dev/null || true
		{
			echo "# perf $(perf version 2>/dev/null | cut -d' ' -f3) record -e cpu-clock -a -g, kernel $(uname -r)"
			echo "# pktgen queue_xmit, $PG_COUNT packets, 1000 flows, $name as child of prio band 1:2"
			echo "# all symbols, self time (top 40):"
			timeout 300 perf report -i "$raw/perf_$name.data" --no-children --sort sym \
				--stdio -g none 2>/dev/null >"$raw/perf_$name.report" || true
			grep -E '^ +[0-9]' "$raw/perf_$name.report" | head -n 40 || true
			echo "# aiclass's own functions (self time):"
			grep -E '^ +[0-9].*aiclass' "$raw/perf_$name.report" || echo "(none sampled)"
		} >"$raw/perf_$name.txt" 2>&1
		rm -f "$raw/perf_$name.data"
	done
else
	echo "perf: not installed in the guest" >"$raw/perf_aiclass.txt"
fi
tc qdisc del dev pg0 root 2>/dev/null || true

# -------------------------------------------------- per-flow state ----
# Bytes per flow slot: sizeof the flow struct (from BTF for the kernel's
# qdiscs, from our module's debug info) plus the arrays allocated beside it
# per slot: fq_codel's backlog (a u32).  aiclass keeps its tag (`key`) and
# CoDel state inside struct aiclass_flow.  cake keeps more per queue than
# its struct (tags, backlogs, overflow heap, hosts); only the struct is
# counted for it.  fq allocates a struct fq_flow per live flow from a slab.
# Lines: "NAME BYTES WHAT".
flow_state() {	# NAME BYTES WHAT
	[ -n "$2" ] && echo "$1 $2 $3"
}
{
	flow_state aiclass "$(gdb -batch -ex "print sizeof(struct aiclass_flow)" \
		"$AICLASS_KO" 2>/dev/null | sed -n 's/^\$1 = //p')" \
		"struct aiclass_flow (tag and CoDel inside)"
	fq=$(python3 "$bench/btfsize.py" fq_codel_flow sch_fq_codel)
	flow_state fq_codel "${fq:+$((fq + 4))}" "struct fq_codel_flow + u32 backlog"
	flow_state cake "$(python3 "$bench/btfsize.py" cake_flow sch_cake)" "struct cake_flow"
	flow_state fq "$(python3 "$bench/btfsize.py" fq_flow sch_fq)" "struct fq_flow"
} >"$raw/flowstate.txt" 2>/dev/null || true

# ---------------------------------------------------------- the report ----
cat >"$raw/conditions.json" <<EOC
{"rate_mbit": $RATE_MBIT, "delay": "$DELAY", "rtt_ms": "${ping_ms:-}",
 "seconds": $SECS, "warm_seconds": $WARM, "idle_seconds": $IDLE_SECS,
 "rpc_seconds": $RPC_SECS, "window_seconds": $WIN,
 "mix_warm_seconds": $MIX_WARM, "mix_window_seconds": $MIX_WIN, "mix_peers": $MIX_PEERS,
 "collective_flows": $COLL_FLOWS, "step_bytes": $COLL_STEP, "udp_mbit": $UDP_MBIT,
 "pktgen_count": $PG_COUNT, "pktgen_reps": $PG_REPS, "pktgen_bypass_reps": $PG_BYPASS_REPS,
 "offloads": "$(tr -s ' \n' ' ' <"$raw/offloads.txt")", "tcp": "cubic, tcp_ecn=0",
 "fq_bands": $([ -n "$fq_bands" ] && echo true || echo false),
 "quick": $([ -n "$quick" ] && echo true || echo false),
 "kernel": "$(uname -r)", "accel": "$( [ "${AICLASS_KVM:-0}" = 1 ] && echo KVM || echo TCG)$( [ "${AICLASS_VM_DETERMINISTIC:-0}" != 1 ] || echo ", icount shift=0")",
 "vcpus": $(nproc), "date": "$(date -u +%Y-%m-%d)",
 "clocksource": "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)",
 "commit": "$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)",
 "module": "$AICLASS_KO", "module_srcversion": "$(cat /sys/module/sch_aiclass/srcversion 2>/dev/null || sha256sum "$AICLASS_KO" | cut -c1-12)",
 "bench_seconds": $(($(date +%s) - started))}
EOC
# the raw numbers stay beside the report: to see what went wrong, and so
# that tools/bench/report.py RAW OUT can be run again on them
rm -rf "$OUT/raw"
cp -r "$raw" "$OUT/raw"
python3 "$bench/report.py" "$raw" "$OUT"
log "done; results in $OUT"
