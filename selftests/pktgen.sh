# SPDX-License-Identifier: GPL-2.0
# selftests/pktgen.sh - pktgen floods through the qdisc of a device, for the
# selftests that need more packets than a user-space sender makes under TCG.
# Sourced after lib.sh; the caller sets $DEV (the device whose qdisc is
# under test, a dummy usually) and $DST (the destination address).
#
# Sources run in queue_xmit mode, so every packet goes through the qdisc:
# pkts-sofar counts the packets it accepted, errors the ones it refused
# (NET_XMIT_DROP or NET_XMIT_CN), so their sum is what the qdisc was offered.

PG=/proc/net/pktgen

# pg_cmd FILE COMMAND: write COMMAND to pktgen's FILE and check its result.
# Read with the shell's own read: a case sets up hundreds of sources, and a
# fork per command is what made them slow on a debug kernel.
pg_cmd() {
	local line
	echo "$2" > "$PG/$1"
	while IFS= read -r line; do
		case $line in
		"Result: OK"*) return 0 ;;
		"Result:"*) fail "pktgen $1: $2: $line" ;;
		esac
	done < "$PG/$1"
	fail "pktgen $1: $2: no result"
}

# pg_reset: pktgen loaded, no source on any of its threads (one per CPU:
# PG_THREADS of them).
pg_reset() {
	local t
	modprobe pktgen
	echo reset > "$PG/pgctrl"
	PG_THREADS=0
	for t in "$PG"/kpktgend_*; do
		pg_cmd "${t##*/}" rem_device_all
		PG_THREADS=$((PG_THREADS + 1))
	done
	[ "$PG_THREADS" -gt 0 ] || fail "pktgen has no thread"
}

# pg_flow N THREAD PRIORITY [KEY VALUE]...: pktgen source "$DEV@N" flooding
# $DEV through its qdisc with skb->priority PRIORITY, 1000-byte frames.
# THREAD counts modulo the CPUs: a one-CPU guest (the deterministic boot)
# runs every source on kpktgend_0.
pg_flow() {
	local n=$1 name=$DEV@$1 thread=$(($2 % PG_THREADS)) prio=$3
	shift 3
	pg_cmd "kpktgend_$thread" "add_device $name"
	pg_cmd "$name" "count 0"
	pg_cmd "$name" "clone_skb 0"
	pg_cmd "$name" "pkt_size 1000"
	pg_cmd "$name" "xmit_mode queue_xmit"
	pg_cmd "$name" "dst $DST"
	pg_cmd "$name" "dst_mac 02:00:00:00:00:02"
	pg_cmd "$name" "udp_dst_min 9"
	pg_cmd "$name" "udp_dst_max 9"
	pg_cmd "$name" "udp_src_min $((10000 + n))"
	pg_cmd "$name" "udp_src_max $((10000 + n))"
	pg_cmd "$name" "skb_priority $((prio))"	# pktgen reads decimal
	# A pace far above the shaper, so that sources sharing a pktgen thread
	# take turns (with delay 0 the first one starves the others).
	pg_cmd "$name" "delay 20000"
	while [ $# -ge 2 ]; do
		pg_cmd "$name" "$1 $2"
		shift 2
	done
}

pg_start() {
	(echo start > "$PG/pgctrl") &
	PG_PID=$!
	defer pg_stop
}

pg_stop() {
	echo stop > "$PG/pgctrl" 2>/dev/null || true
	[ -z "${PG_PID:-}" ] || wait "$PG_PID" 2>/dev/null || true
	PG_PID=
}

# pg_sum ERRORS: the packets the $DEV sources sent, plus the ones the qdisc
# refused when ERRORS is 1.
pg_sum() {
	local d key sofar ekey errors n=0
	for d in "$PG"/"$DEV"@*; do
		[ -e "$d" ] || continue
		while read -r key sofar ekey errors _; do
			[ "$key" = "pkts-sofar:" ] || continue
			n=$((n + sofar))
			[ "$1" = 0 ] || n=$((n + errors))
			break
		done < "$d"
	done
	echo "$n"
}

pg_total() {
	pg_sum 0
}

# pg_offered: packets the $DEV sources offered the qdisc, accepted or not.
pg_offered() {
	pg_sum 1
}

# qdisc_counts [PARENT]: "SENT DROPPED BACKLOG" packets of the qdisc at
# PARENT (default root) of $DEV, from `tc -s qdisc show`.
qdisc_counts() {
	tc -s qdisc show dev "$DEV" parent "${1:-root}" | awk '
		$1 == "Sent" { sent = $4; d = $7; sub(",", "", d) }
		$1 == "backlog" { b = $3; sub("p", "", b) }
		END { printf "%d %d %d\n", sent, d, b }'
}

# qdisc_backlog [PARENT]: the packets the qdisc at PARENT (default root)
# of $DEV holds, the BACKLOG of qdisc_counts.
qdisc_backlog() {
	qdisc_counts "$@" | cut -d' ' -f3
}

# pg_burst N [KEY VALUE]...: N packets through the qdisc of $DEV from two
# sources (one with many flows, one with small packets), waited for 30 s at
# most: pktgen counts only accepted packets towards N, so a qdisc that
# refuses everything would keep it going forever.
pg_burst() {
	pg_burst_sources "$@"
	pg_run
}

# pg_burst_sources N [KEY VALUE]...: set up pg_burst's two sources without
# starting them, for a case that runs them several times.
pg_burst_sources() {
	local n=$1
	shift
	pg_reset
	pg_flow 1 0 0 count "$((n / 2))" delay 0 flag UDPSRC_RND \
		udp_src_min 1 udp_src_max 2000 "$@"
	pg_flow 2 1 0 count "$((n - n / 2))" delay 0 pkt_size 200 "$@"
}

# pg_run: start the sources as they are set now (pktgen clears their
# counters at each start) and wait for them as pg_burst says.
pg_run() {
	local pid i
	(echo start > "$PG/pgctrl") &
	pid=$!
	for ((i = 0; i < 300; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo stop > "$PG/pgctrl"
	wait "$pid" || true
}

# counts_add_up BEFORE OFFERED: the qdisc's counters now, less BEFORE
# ("SENT DROPPED BACKLOG" as qdisc_counts gave), account for OFFERED
# packets: sent + dropped + backlog = offered.
counts_add_up() {
	local before=$1 offered=$2 s0 d0 b0 s d b
	read -r s0 d0 b0 <<<"$before"
	read -r s d b <<<"$(qdisc_counts)"
	echo "offered $offered: sent $((s - s0)), dropped $((d - d0)), backlog $b (was $b0)"
	[ $((s - s0 + d - d0 + b - b0)) -eq "$offered" ] ||
		fail "counters do not add up: $((s - s0)) + $((d - d0)) + $((b - b0)) != $offered"
}

# qdisc_drained [PARENT]: wait (10 s at most) until the qdisc at PARENT
# (default root) of $DEV holds no packet.
qdisc_drained() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ "$(qdisc_backlog "$@")" = 0 ] && return 0
		sleep 0.1
	done
	fail "qdisc did not drain: $(tc -s qdisc show dev "$DEV")"
}
