#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# aiclass behaviour on a real kernel: every classification route lands where
# it should, DRR follows the weights, latency bands are strict priority
# under the starvation guard, the guard keeps train_share for training, CE
# marks only above ce_threshold, the limits hold under a flood, `change`
# under traffic loses no packet, and bad values are refused with the
# kernel's message and change nothing.
#
# The qdisc sits on a dummy device: what it dequeues is "sent".  Packets
# come from udpsend.py (exact counts, per-packet priority, TOS and payload)
# or from pktgen in queue_xmit mode (floods far above the aiclass shaper).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pktgen.sh"
. "$(dirname "$0")/dummy.sh"


# ------------------------------------------------------ classification ----

test_route_priority() {
	local before
	dev_setup
	aq
	send 7000 -n 20 -p 0x10002
	send 7000 -n 30 -p 0x10012 -S 7100
	check_eq "$(class_stat 1:2 pkts)" 20 "packets in 1:2 (priority 1:2)"
	check_eq "$(class_stat 1:12 pkts)" 30 "packets in 1:12 (priority 1:12)"
	check_eq "$(aiclass_xstat cls_priority)" 50 "packets classified by priority"
	# A priority naming a class that does not exist is not a match.
	before=$(class_stat 1:1 pkts)
	send 7000 -n 5 -p 0x10007 -S 7200
	check_eq "$(aiclass_xstat cls_priority)" 50 "priority 1:7 with 3 bands"
	check_eq "$(($(class_stat 1:1 pkts) - before))" 5 "packets to 1:1 (auto)"
}

test_route_filter() {
	dev_setup
	aq
	tc filter add dev "$DEV" parent 1: protocol ip prio 1 u32 \
		match ip dport 7001 0xffff classid 1:13
	tc filter add dev "$DEV" parent 1: protocol ip prio 2 u32 \
		match ip dport 7002 0xffff action drop
	send 7001 -n 25
	send 7002 -n 7 -S 7300
	check_eq "$(class_stat 1:13 pkts)" 25 "packets in 1:13 (filter)"
	check_eq "$(aiclass_xstat cls_filter)" 25 "packets classified by filter"
	check_eq "$(aiclass_xstat drop_filter)" 7 "packets shot by a filter action"
	# skb->priority wins over filters.
	send 7001 -n 4 -p 0x10003 -S 7400
	check_eq "$(class_stat 1:3 pkts)" 4 "priority before filters"
}

test_route_priomap() {
	dev_setup
	aq priomap auto auto auto auto auto 1:12 auto auto \
		auto auto auto auto auto auto auto 1:2
	send 7000 -n 11 -p 5
	send 7000 -n 6 -p 15 -S 7500
	check_eq "$(class_stat 1:12 pkts)" 11 "priority 5 -> 1:12"
	check_eq "$(class_stat 1:2 pkts)" 6 "priority 15 -> 1:2"
	check_eq "$(aiclass_xstat cls_priomap)" 17 "packets classified by priomap"
}

test_route_roce() {
	dev_setup
	aq
	send 4791 -n 9 -b 0x81 -S 7600		# CNP
	send 4791 -n 8 -b 0x11 -S 7601		# RC acknowledge
	send 4791 -n 12 -b 0x04 -S 7602		# RC send only: data
	check_eq "$(class_stat 1:1 pkts)" 17 "CNP and ACK in 1:1"
	check_eq "$(class_stat 1:11 pkts)" 12 "RoCE data in default class"
	check_eq "$(aiclass_xstat cls_roce)" 29 "packets classified as RoCE"

	tc qdisc change dev "$DEV" root aiclass default_class 1:13 roce_port 4792
	send 4792 -n 5 -b 0x04 -S 7603
	check_eq "$(class_stat 1:13 pkts)" 5 "RoCE data to default_class 1:13"
	tc qdisc change dev "$DEV" root aiclass noroce
	send 4792 -n 3 -b 0x81 -S 7604
	check_eq "$(aiclass_xstat cls_roce)" 34 "noroce stops RoCE classification"
}

test_route_auto() {
	local expect got c c1 c2 c3
	dev_setup
	# A long idle so that the sender's pauses never split the burst, and
	# a long forget so that a slow guest (a debug kernel under TCG takes
	# seconds per command) never outlasts it between the two bursts.  A
	# burst counts by what it queues, so a shaper far below the sender's
	# pace: only the first few packets leave before a quantum waits; and
	# a CoDel target above the queue's 0.8 s, so that none is dropped.
	aq idle 1s forget 600s rate 4mbit target 1s interval 10s
	send 7000 -n 400 -s 1000 -S 7700
	wait_drained
	# 1000 payload + 8 UDP + 20 IP + 14 Ethernet bytes a packet; bursts
	# stay in 1:1 up to 64 KB, 1:2 to 128 KB, 1:3 to 256 KB, counted from
	# the first packet that finds a quantum queued.  Each demotion takes
	# the flow's queued packets along, so a class sends more or fewer than
	# the bytes that reached it: count the demotions, and what leaves
	# training, which takes every packet past 256 KB (400 - 252 at least).
	got="$(class_stat 1:1 pkts) $(class_stat 1:2 pkts) $(class_stat 1:3 pkts) $(class_stat 1:11 pkts)"
	echo "packets sent by 1:1 1:2 1:3 1:11: $got"
	read -r c1 c2 c3 expect <<<"$got"
	check_eq "$((c1 + c2 + c3 + expect))" 400 "packets of the burst sent"
	[ "$c1" -gt 0 ] || fail "nothing of the burst left through 1:1"
	[ "$expect" -ge 148 ] || fail "only $expect packets through 1:11"
	check_eq "$(aiclass_xstat demotions)" 3 "demotions"

	# The burst was an elephant: after an idle shorter than forget the
	# flow's next burst starts as training.
	tc qdisc change dev "$DEV" root aiclass idle 100ms
	sleep 0.3
	send 7000 -n 10 -s 1000 -S 7700
	wait_drained
	check_eq "$(class_stat 1:11 pkts)" "$((expect + 10))" \
		"remembered elephant's next burst starts in 1:11"
	check_eq "$(aiclass_xstat remembered)" 1 "bursts remembered as training"
	# A burst of one packet queues nothing: the elephant is remembered
	# again and leaves with no burst counted, as one whose paced packets
	# all left before the next arrived.
	sleep 0.3
	send 7000 -n 1 -s 1000 -S 7700
	wait_drained
	check_eq "$(class_stat 1:11 pkts)" "$((expect + 11))" \
		"remembered elephant's packet in 1:11"
	check_eq "$(aiclass_xstat remembered)" 2 "bursts remembered as training"
	# An elephant quiet for longer than forget is forgotten, with or
	# without a burst counted: its next burst starts in 1:1.
	tc qdisc change dev "$DEV" root aiclass forget 200ms
	sleep 0.5
	c=$(class_stat 1:1 pkts)
	send 7000 -n 10 -s 1000 -S 7700
	wait_drained
	check_eq "$(($(class_stat 1:1 pkts) - c))" 10 "forgotten elephant's burst in 1:1"
	check_eq "$(aiclass_xstat remembered)" 2 "elephants remembered past forget"
	[ "$(aiclass_xstat idle_resets)" -ge 1 ] || fail "idle_resets not counted"
}

# Distinct flows never share a queue while their set has a free way: eight
# flows fill a 16-slot table (two sets of eight ways), so none of them may
# land in another's queue, and an explicitly classified flow must not be
# moved to another flow's class.  A direct-mapped table of 16 slots gives
# these eight flows a shared slot at most boots.
test_flow_table_crowded() {
	local pid
	dev_setup
	aq flows 16 rate 80kbit target 1s interval 10s
	send 7000 -n 3 -s 1000 -S 7800 -f 4 -p 0x10011 &
	pid=$!
	send 7000 -n 3 -s 1000 -S 7804 -f 4 -p 0x10012
	wait "$pid"
	echo "flows in the table after the sends: $(aiclass_xstat active_flows)"
	wait_drained
	check_eq "$(class_stat 1:11 pkts) $(class_stat 1:12 pkts)" "12 12" \
		"packets in 1:11 and 1:12"
	check_eq "$(aiclass_xstat flows_moved)" 0 "flows moved between classes"
}

# More backlogged flows than slots: 24 flows in 16 slots must share, every
# shared packet is counted in flows_shared, and every packet still leaves.
test_flow_table_overflow() {
	local shared
	dev_setup
	aq flows 16 rate 100kbit target 1s interval 10s
	send 7000 -n 3 -s 1000 -S 7900 -f 24 -p 0x10011
	echo "flows in the table after the sends: $(aiclass_xstat active_flows)"
	wait_drained
	check_eq "$(class_stat 1:11 pkts)" 72 "packets sent by 1:11"
	shared=$(aiclass_xstat flows_shared)
	echo "flows_shared $shared"
	[ "$shared" -gt 0 ] ||
		fail "24 flows in 16 slots, yet no packet counted in flows_shared"
}

# kprobe_hits EVENT: how often the kprobe event EVENT has fired.
kprobe_hits() {
	awk -v e="$1" '$1 == e { print $2 }' "$TRACEFS/kprobe_profile"
}

# kprobe_add EVENT SYMBOL: a kprobe event on SYMBOL, enabled, removed at
# the end of the case; fails where the kernel has no kprobe events (the
# debug kernel of make check-debug; tools/vm/init mounts tracefs).  The event is enabled with tracing's
# record-cmd option off: with it on, enabling or disabling any event
# hooks or unhooks the sched_switch tracepoint, which patches
# __schedule() while the other CPU runs it, and under TCG on 6.1 that
# patching once hung both vCPUs (the selftest run of 2026-12-02).
kprobe_add() {
	TRACEFS=/sys/kernel/tracing
	[ -e "$TRACEFS/kprobe_events" ] || return 1
	if [ "$(cat "$TRACEFS/options/record-cmd")" = 1 ]; then
		echo 0 >"$TRACEFS/options/record-cmd" || return 1
		defer sh -c "echo 1 >$TRACEFS/options/record-cmd"
	fi
	echo "p:$1 $2" >>"$TRACEFS/kprobe_events" 2>/dev/null || return 1
	defer sh -c "echo -:$1 >>$TRACEFS/kprobe_events"
	echo 1 >"$TRACEFS/events/kprobes/$1/enable"
	defer sh -c "echo 0 >$TRACEFS/events/kprobes/$1/enable"
}

# One read of the IP header per packet: pktgen's packets carry no hash, and
# aiclass hashes their IPv4 and IPv6 flows from its own read of the header
# (the one the auto route's RoCE and DSCP checks make), so the flow
# dissector, which used to hash every one of them, never runs; the flows
# still get a queue each.
test_flow_hash_own_parse() {
	local n h0 hits i sent probe=1
	dev_setup
	kprobe_add aiclass_dissect __skb_flow_dissect || probe=
	# 1 packet a second out, 8 sources at 10 a second in: all queued
	aq flows 16 rate 8kbit target 1s interval 10s
	pg_reset
	for n in 1 2 3 4; do
		pg_flow "$n" 0 0 delay 100000000
	done
	for n in 5 6 7 8; do
		pg_flow "$n" 1 0 delay 100000000 \
			src6 2001:db8::1 dst6 2001:db8::2
	done
	[ -z "$probe" ] || h0=$(kprobe_hits aiclass_dissect)
	pg_start
	for ((i = 0; i < 100; i++)); do
		[ "$(aiclass_xstat active_flows)" -lt 8 ] || break
		sleep 0.1
	done
	[ -z "$probe" ] || hits=$(($(kprobe_hits aiclass_dissect) - h0))
	sent=$(pg_total)
	check_eq "$(aiclass_xstat active_flows)" 8 \
		"queues of 4 IPv4 and 4 IPv6 flows"
	check_eq "$(aiclass_xstat flows_shared)" 0 "packets in a shared queue"
	if [ -n "$probe" ]; then
		echo "flow dissector runs for $sent packets (or more): $hits"
		check_eq "$hits" 0 "flow dissector runs"
	else
		echo "no kprobe events in this kernel: flow dissector runs not counted"
	fi
	tc qdisc del dev "$DEV" root
	pg_stop
}

# -------------------------------------------------------- scheduling ----

test_drr_weights() {
	local c share
	dev_setup
	aq train_classes 3 weights 1 2 4 rate 10mbit
	pg_reset
	pg_flow 1 0 0x10011
	pg_flow 2 0 0x10012
	pg_flow 3 1 0x10013
	pg_start
	sleep 2
	window 10 11 12 13
	pg_stop
	for c in 11 12 13; do
		share=$(eval echo "\$W_$c")
		echo "1:$c sent $share of $W_TOTAL bytes ($(pct "$share" "$W_TOTAL")%)"
	done
	within_pct "$W_11" "$((W_TOTAL / 7))" 5 "share of 1:11 (weight 1)"
	within_pct "$W_12" "$((W_TOTAL * 2 / 7))" 5 "share of 1:12 (weight 2)"
	within_pct "$W_13" "$((W_TOTAL * 4 / 7))" 5 "share of 1:13 (weight 4)"
	# Saturated: every class had more offered than it was given.
	for c in 11 12 13; do
		[ "$(class_stat "1:$c" dropped)" -gt 0 ] ||
			fail "1:$c was not saturated (no drops): shares say nothing"
	done
	echo "$W_TOTAL bytes in $W_SECS s through the 10mbit shaper"
}

test_guard_share() {
	local share
	dev_setup
	aq rate 10mbit train_share 10 burst 64kb
	pg_reset
	pg_flow 1 0 0x10001
	pg_flow 2 1 0x10011
	pg_start
	sleep 2
	window 10 1 11
	pg_stop
	share=$(pct "$W_11" "$W_TOTAL")
	echo "training got $share% of $W_TOTAL bytes while 1:1 oversubscribed the link"
	awk -v s="$share" 'BEGIN { exit !(s >= 8 && s <= 12) }' ||
		fail "training share $share% is not 10 +- 2 points"
	[ "$(aiclass_xstat guard_yields)" -gt 0 ] || fail "no guard yields counted"
}

test_strict_priority_under_guard() {
	local lo drops
	dev_setup
	# A shaper slow enough that pktgen oversubscribes 1:1 on any kernel,
	# a debug kernel included; 1:1's band-limit drops below show it did.
	aq rate 2mbit train_share 10 lat_limit 50
	pg_reset
	pg_flow 1 0 0x10001
	pg_flow 2 0 0x10002
	pg_flow 3 1 0x10011
	pg_start
	sleep 2
	drops=$(class_stat 1:1 dropped)
	window 8 1 2 11
	drops=$(($(class_stat 1:1 dropped) - drops))
	pg_stop
	echo "1:1 dropped $drops packets at its band limit in the window"
	[ "$drops" -gt 0 ] ||
		fail "1:1 was not oversubscribed (no band-limit drops): the case shows nothing"
	echo "1:1 $(pct "$W_1" "$W_TOTAL")%, 1:2 $(pct "$W_2" "$W_TOTAL")%, 1:11 $(pct "$W_11" "$W_TOTAL")%"
	# 1:2 waits for 1:1 even while the guard serves training.
	lo=$(pct "$W_2" "$W_TOTAL")
	awk -v s="$lo" 'BEGIN { exit !(s < 1) }' ||
		fail "1:2 got $lo% while 1:1 was backlogged"
	awk -v s="$(pct "$W_11" "$W_TOTAL")" 'BEGIN { exit !(s >= 8 && s <= 12) }' ||
		fail "training share off under the guard"
}

test_ce_threshold() {
	local before marks
	dev_setup
	aq rate 20mbit ce_threshold 5ms
	pg_reset
	# ECT(0) training flood: the queue grows far past 5 ms.
	pg_flow 1 0 0x10011 tos 02
	pg_start
	sleep 3
	pg_stop
	wait_drained
	marks=$(aiclass_xstat ce_marks)
	echo "$marks CE marks under a saturating ECT flood"
	[ "$marks" -gt 0 ] || fail "no CE marks above ce_threshold"

	# Not ECN-capable: never marked (and not dropped early).
	before=$marks
	aq rate 20mbit ce_threshold 5ms
	pg_reset
	pg_flow 1 0 0x10011 tos 00
	pg_start
	sleep 3
	pg_stop
	check_eq "$(aiclass_xstat ce_marks)" 0 "CE marks on non-ECT packets"

	# Below the shaper rate the queue stays short: no marks.
	aq rate 20mbit ce_threshold 50ms
	pg_reset
	pg_flow 1 0 0x10011 tos 02 delay 2000000
	pg_start
	sleep 3
	pg_stop
	check_eq "$(aiclass_xstat ce_marks)" 0 "CE marks with the queue below ce_threshold"
	[ "$(class_stat 1:11 pkts)" -gt 0 ] || fail "light flow sent nothing"
	: "$before"
}

# ----------------------------------------------------------- limits ----

# sample_max SECONDS CMD: the largest number CMD printed, sampled 10x a second.
sample_max() {
	local end=$((SECONDS + $1)) v max=0
	shift
	while [ $SECONDS -lt $end ]; do
		v=$("$@")
		[ "$v" -gt "$max" ] && max=$v
		sleep 0.1
	done
	echo "$max"
}


mem_now() {
	aiclass_xstat memory_used
}

# flood_holds PROBE CAP DROPS AICLASS_OPTIONS...: flood two training
# classes, one from far more flows than the table holds, through a 5mbit
# aiclass with those options; PROBE, sampled 10x a second, never exceeds CAP
# and the drop counter DROPS moves.
flood_holds() {
	local probe=$1 cap=$2 drops=$3 max
	shift 3
	dev_setup
	aq rate 5mbit "$@"
	pg_reset
	pg_flow 1 0 0x10011 flag UDPSRC_RND udp_src_min 1 udp_src_max 60000
	pg_flow 2 1 0x10012
	pg_start
	max=$(sample_max 4 "$probe")
	pg_stop
	echo "largest $probe seen: $max, cap $cap ($*)"
	[ "$max" -le "$cap" ] || fail "$probe reached $max, over $cap"
	[ "$(aiclass_xstat "$drops")" -gt 0 ] || fail "no $drops counted"
	wait_drained
}

test_limit_flood() {
	flood_holds qdisc_backlog 200 drop_overlimit limit 200 flows 64
}

test_memory_flood() {
	flood_holds mem_now 262144 drop_memory memory_limit 256kb
}

test_latency_band_limit() {
	local max
	dev_setup
	aq rate 5mbit lat_limit 50
	pg_reset
	pg_flow 1 0 0x10001
	pg_start
	max=$(sample_max 3 qdisc_backlog)
	pg_stop
	echo "largest 1:1 queue seen: $max packets, lat_limit 50"
	[ "$max" -le 50 ] || fail "band 1:1 held $max packets over lat_limit 50"
	[ "$(aiclass_xstat drop_band)" -gt 0 ] || fail "no band-limit drops counted"
	check_eq "$(aiclass_xstat drop_overlimit)" 0 "over-limit drops of latency traffic"
}

# ----------------------------------------------------- live changes ----

test_change_under_traffic() {
	local i sent dropped offered
	dev_setup
	# priomap: while a change takes a source's class away (1:4 with two
	# bands, 1:12 with one training class) its packets, and the queued
	# flows with them, go to 1:11, which every step keeps.  Left to auto,
	# the training flows' small bursts would land in 1:1 and overflow its
	# lat_limit as soon as a change takes a while (a debug kernel).
	aq rate 4mbit limit 100000 memory_limit 256mb lat_bands 4 \
		target 1s interval 10s \
		priomap 1:11 auto auto auto auto auto auto auto \
		auto auto auto auto auto auto auto auto
	pg_reset
	# Latency at a fifth of the shaper rate, training at its whole rate:
	# a queue builds, far below the limits, and every change below meets
	# queued packets.
	# (Packet rates a debug kernel's pktgen keeps up with.)  The packets
	# are ECT(0): when a slow guest's changes let the queue's sojourn pass
	# even CoDel's longest target, CoDel marks them instead of dropping;
	# what this case counts is what the moves lose.
	pg_flow 1 0 0x10004 delay 10000000 tos 02
	pg_flow 2 1 0x10012 delay 2000000 tos 02 \
		flag UDPSRC_RND udp_src_min 1 udp_src_max 500
	pg_start
	for i in $(seq 50); do
		[ "$(qdisc_backlog)" -gt 20 ] && break
		sleep 0.1
	done
	[ "$(qdisc_backlog)" -gt 20 ] ||
		fail "no queue built: the changes would meet an empty qdisc"
	for i in 1 2 3; do
		tc qdisc change dev "$DEV" root aiclass lat_bands 2
		tc qdisc change dev "$DEV" root aiclass train_classes 1
		tc qdisc change dev "$DEV" root aiclass flows 64 weights 3
		tc qdisc change dev "$DEV" root aiclass train_classes 4 flows 4096
		tc class change dev "$DEV" classid 1:12 aiclass weight 7
		tc qdisc change dev "$DEV" root aiclass lat_bands 8 burst 16kb \
			train_share 30 idle 2ms ce_threshold 1ms quantum 3000
		tc qdisc change dev "$DEV" root aiclass flows 1024 rate 5mbit \
			lat_bands 4 limit 50000
		sleep 0.3
	done
	pg_stop
	wait_drained
	offered=$(pg_total)
	read -r sent dropped _ <<<"$(qdisc_counts)"
	echo "pktgen queued $offered packets, aiclass sent $sent, $(aiclass_xstat flows_moved) flow moves"
	echo "drops: $(aiclass_xstat drop_band) band, $(aiclass_xstat drop_overlimit) overlimit, $(aiclass_xstat drop_memory) memory, $(aiclass_xstat drop_aqm) aqm; $(aiclass_xstat aqm_marks) aqm marks"
	check_eq "$dropped" 0 "packets dropped"
	check_eq "$sent" "$offered" "packets sent after live changes"
	[ "$(aiclass_xstat flows_moved)" -gt 0 ] || fail "no queued flow was moved"
}

test_shrink_limit_drops_excess() {
	local qlen drops
	dev_setup
	aq rate 1mbit limit 5000
	pg_reset
	pg_flow 1 0 0x10011 delay 100000
	pg_start
	sleep 2
	pg_stop
	# Next to no dequeue from here on: a packet each 16 s.
	tc qdisc change dev "$DEV" root aiclass rate 512bit
	sleep 0.2
	qlen=$(qdisc_backlog)
	[ "$qlen" -gt 100 ] || fail "no queue built ($qlen packets)"
	drops=$(aiclass_xstat drop_overlimit)
	tc qdisc change dev "$DEV" root aiclass limit 100
	check_eq "$(qdisc_backlog)" 100 "queue after shrinking limit to 100"
	check_eq "$(($(aiclass_xstat drop_overlimit) - drops))" "$((qlen - 100))" \
		"packets dropped by the shrink"
	tc qdisc change dev "$DEV" root aiclass rate 0
	wait_drained
}

# A shaper whose burst (4 quanta at the rate) is longer than the time
# since boot once stalled for good: its virtual clock started before 0.
test_slow_rate_after_boot() {
	dev_setup
	# 4 quanta of 1 MB at 64 bytes/s: 18 hours, longer than any uptime
	# here.
	aq rate 512bit quantum 1048576
	send 7000 -n 3 -s 100 -S 7950
	wait_drained
	check_eq "$(class_stat 1:1 pkts)" 3 "packets sent by the slowest shaper"
}

# A reset (the link going down) empties the qdisc and forgets every flow:
# a flow that was an elephant before starts its next burst in 1:1.
test_reset_forgets() {
	local before
	dev_setup
	aq idle 10s rate 4mbit target 1s interval 10s
	send 7000 -n 300 -s 1000 -S 8000
	wait_drained
	[ "$(class_stat 1:11 pkts)" -gt 0 ] || fail "the burst never reached 1:11"
	ip link set dev "$DEV" down
	ip link set dev "$DEV" up
	before=$(class_stat 1:1 pkts)
	send 7000 -n 10 -s 1000 -S 8000
	wait_drained
	check_eq "$(($(class_stat 1:1 pkts) - before))" 10 \
		"packets of the old elephant in 1:1 after a reset"
}

# Stats dumps run without the qdisc lock: each class dump must still be one
# snapshot.  pktgen's packets are all of one length, so a class's backlog
# is always its queue length times that length.
test_stats_dumps_under_traffic() {
	local res
	TC615=${AICLASS_TC615:-/var/cache/aiclass-tc615/root/sbin/tc}
	[ -x "$TC615" ] || skip "no tc 6.15 in $TC615 (make testdeps)"
	dev_setup
	aq rate 10mbit
	pg_reset
	pg_flow 1 0 0x10001 delay 200000
	pg_flow 2 1 0x10011
	pg_start
	sleep 1
	# tc 6.1 prints no class JSON: tc 6.15's does (make testdeps).
	res=$(python3 - "$DEV" "$TC615" <<'PY'
import json, os, subprocess, sys, time
sys.path.insert(0, os.environ["TOP"] + "/selftests")
from tcjson import find
end, n, busy, bad, size = time.monotonic() + 5, 0, 0, 0, set()
while time.monotonic() < end:
    out = subprocess.run([sys.argv[2], "-s", "-j", "class", "show", "dev", sys.argv[1]],
                         capture_output=True, text=True, check=True).stdout
    subprocess.run(["tc", "-s", "qdisc", "show", "dev", sys.argv[1]],
                   capture_output=True, check=True)
    for c in json.loads(out):
        q, b = find(c, "qlen") or 0, find(c, "backlog") or 0
        n += 1
        if q:
            busy += 1
            size.add(b / q)
        elif b:
            bad += 1
print(n, busy, bad, len(size))
PY
)
	pg_stop
	wait_drained
	read -r n busy bad sizes <<<"$res"
	echo "$n class dumps, $busy with a queue, $bad with bytes but no packets, $sizes backlog/qlen ratios"
	[ "$busy" -gt 0 ] || fail "no dump saw a queue"
	check_eq "$bad" 0 "dumps with a backlog of bytes but no packets"
	check_eq "$sizes" 1 "backlog/qlen ratios seen (one packet length)"
}

# ------------------------------------------------------ bad requests ----

# refused ARGS...: `tc ARGS` must fail with the kernel's extack (exit 2)
# and leave `tc qdisc show` as it was.
refused() {
	local before after out rc=0
	before=$(tc qdisc show dev "$DEV")
	out=$(tc "$@" 2>&1) || rc=$?
	after=$(tc qdisc show dev "$DEV")
	echo "tc $*: exit $rc: $out"
	[ "$rc" -eq 2 ] || fail "expected the kernel to refuse (exit 2)"
	echo "$out" | has "Error:" || fail "no extack message"
	[ "$before" = "$after" ] || fail "configuration changed: $after"
}

test_bad_values() {
	dev_setup
	aq weights 1 2 3 4 priomap 1:14 auto auto auto auto auto auto auto \
		auto auto auto auto auto auto auto auto
	refused qdisc change dev "$DEV" root aiclass thresholds 100000 300000
	refused qdisc change dev "$DEV" root aiclass lat_bands 8 elephant 2000
	refused qdisc change dev "$DEV" root aiclass default_class 1:15
	refused qdisc change dev "$DEV" root aiclass train_classes 2
	refused qdisc change dev "$DEV" root aiclass weights 1 2 3 4 5
	refused class change dev "$DEV" classid 1:1 aiclass weight 3
	refused class add dev "$DEV" parent 1: classid 1:30 aiclass weight 3
	refused class del dev "$DEV" classid 1:11
	tc class show dev "$DEV" | has "1:11" || fail "class 1:11 is gone"
}

test_classes_listed() {
	local got
	dev_setup
	aq lat_bands 2 train_classes 5
	got=$(tc class show dev "$DEV" | awk '$1 == "class" { printf "%s ", $3 }')
	check_eq "$got" "1:1 1:2 1:11 1:12 1:13 1:14 1:15 " "classes listed"
}

test_unload_under_traffic() {
	dev_setup
	aq rate 10mbit
	pg_reset
	pg_flow 1 0 0x10011
	pg_flow 2 1 0x10001 flag UDPSRC_RND udp_src_min 1 udp_src_max 60000
	pg_start
	sleep 1
	if rmmod sch_aiclass 2>/dev/null; then
		fail "module unloaded while a qdisc used it"
	fi
	aq rate 10mbit flows 65536
	tc qdisc replace dev "$DEV" root pfifo
	sleep 0.5
	pg_stop
	aiclass_unload
	aiclass_load
}

aiclass_load
ktap_plan 23
run_case "classify: skb->priority" test_route_priority
run_case "classify: tc filters, shot counted" test_route_filter
run_case "classify: priomap" test_route_priomap
run_case "classify: RoCEv2 CNP/ACK to 1:1, data to default class" test_route_roce
run_case "classify: auto bursts demoted band by band, reset after idle" test_route_auto
run_case "classes listed are the configured ones" test_classes_listed
run_case "crowded flow table: flows keep their own queues and classes" test_flow_table_crowded
run_case "overflowing flow table: shared slots counted, nothing lost" test_flow_table_overflow
run_case "IPv4 and IPv6 flows hashed from aiclass's own read of the header" test_flow_hash_own_parse
run_case "DRR shares follow weights 1:2:4 within 5%" test_drr_weights
run_case "guard keeps train_share (10 +- 2 points) for training" test_guard_share
run_case "strict priority among latency bands under the guard" test_strict_priority_under_guard
run_case "CE marks only above ce_threshold, only ECT" test_ce_threshold
run_case "limit holds under a flood" test_limit_flood
run_case "memory_limit holds under a flood" test_memory_flood
run_case "latency band limit" test_latency_band_limit
run_case "change under traffic loses no packet" test_change_under_traffic
run_case "shrinking limit drops only the excess" test_shrink_limit_drops_excess
run_case "slowest shaper right after boot does not stall" test_slow_rate_after_boot
run_case "reset forgets flows" test_reset_forgets
run_case "stats dumps under traffic are snapshots" test_stats_dumps_under_traffic
run_case "bad values refused with extack, config unchanged" test_bad_values
run_case "unload refused while in use, clean after" test_unload_under_traffic
ktap_finish
