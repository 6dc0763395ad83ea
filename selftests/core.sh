#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The scheduler core against what saturating TCP under an HTB parent never
# shows: parents that peek while CoDel drops, a flow that drains while
# CoDel drops and comes back, a training class fed just below the link
# rate, full flow-table sets under churn, a chatty flow that never queues,
# the shaper as a child.  Each case comes from a defect of the core, and
# fails on the module before its fix (see docs/testing.md).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pktgen.sh"
. "$(dirname "$0")/dummy.sh"

# ----------------------------------------------------------- peeking ----

# peek_tree PARENT: $DEV's root is PARENT (its own shaper, or a tbf above
# it for the parents that do not shape), aiclass (handle 1:) its child.
peek_tree() {
	tc qdisc del dev "$DEV" root 2>/dev/null || true
	case $1 in
	tbf)
		tc qdisc add dev "$DEV" root handle 10: tbf rate 40mbit \
			burst 200kb latency 2s
		tc qdisc add dev "$DEV" parent 10:1 handle 1: aiclass "${@:2}"
		;;
	htb)
		tc qdisc add dev "$DEV" root handle 10: htb default 1
		tc class add dev "$DEV" parent 10: classid 10:1 htb rate 40mbit
		tc qdisc add dev "$DEV" parent 10:1 handle 1: aiclass "${@:2}"
		;;
	hfsc)
		tc qdisc add dev "$DEV" root handle 10: hfsc default 1
		tc class add dev "$DEV" parent 10: classid 10:1 hfsc \
			sc rate 40mbit ul rate 40mbit
		tc qdisc add dev "$DEV" parent 10:1 handle 1: aiclass "${@:2}"
		;;
	qfq | drr | ets)
		tc qdisc add dev "$DEV" root handle 9: tbf rate 40mbit \
			burst 200kb latency 2s
		if [ "$1" = ets ]; then
			tc qdisc add dev "$DEV" parent 9:1 handle 10: ets \
				bands 1 quanta 3000
		else
			tc qdisc add dev "$DEV" parent 9:1 handle 10: "$1"
			tc class add dev "$DEV" parent 10: classid 10:1 "$1"
			tc filter add dev "$DEV" parent 10: matchall classid 10:1
		fi
		tc qdisc add dev "$DEV" parent 10:1 handle 1: aiclass "${@:2}"
		;;
	esac
}

# Under a parent that peeks (hfsc, qfq, tbf; drr and ets for their DRR
# bands), a dequeue whose CoDel drops leave aiclass empty has the parent
# told "empty" before the peeked packet is back in gso_skb: hfsc and qfq
# then deactivate a class that still holds a packet, and it never leaves.
# GSO packets of 30 KB in a 40 Mbit tree with a 1 ms target: CoDel drops,
# and a lone super-packet (over one MTU, so CoDel may drop in front of it)
# is often the last one.  The tree must drain, every time.  A second pass
# per parent takes the auto route through a full flow table: 24 flows in
# `flows 16`, so that bursts are counted, flows are demoted with their
# queues and packets share slots, all while CoDel drops and the parent
# peeks.
test_peek_parents() {
	local p i demoted shared bad=""
	dev_setup
	for p in tbf htb hfsc qfq drr ets; do
		peek_tree "$p" no_split_gso noecn target 1ms interval 10ms
		for i in 1 2 3; do
			$SEND "$DST" 7000 -n 60 -s 30000 -g 1000 -i 0.002 \
				-S $((7100 + i)) -p 0x10011 &
		done
		wait
		peek_drained "$p"
		peek_tree "$p" flows 16 no_split_gso noecn target 1ms interval 10ms
		$SEND "$DST" 7000 -n 10 -s 30000 -g 1000 -S 7200 -f 24
		peek_drained "$p auto"
		demoted=$(aiclass_xstat demotions 10:1)
		shared=$(aiclass_xstat flows_shared 10:1)
		echo "$p auto: $demoted demotions, $shared packets in shared slots"
		[ "$demoted" -gt 0 ] ||
			bad+=" $p(auto: no demotion: tests nothing)"
		[ "$shared" -gt 0 ] ||
			bad+=" $p(auto: no shared slot: tests nothing)"
	done
	tc qdisc del dev "$DEV" root
	[ -z "$bad" ] || fail "under:$bad"
}

# peek_drained WHAT: the tree drains within 10 s, and CoDel dropped on the
# way; adds to test_peek_parents' bad what did not.
peek_drained() {
	local i drops left
	for ((i = 0; i < 100; i++)); do
		left=$(qdisc_backlog)
		[ "$left" = 0 ] && break
		sleep 0.1
	done
	drops=$(aiclass_xstat drop_aqm 10:1)
	echo "$1: CoDel dropped $drops, backlog left ${left}p"
	[ "$drops" -gt 0 ] || bad+=" $1(no CoDel drop: tests nothing)"
	[ "$left" = 0 ] || bad+=" $1(stuck: ${left}p)"
}

# ------------------------------------------------------------- CoDel ----

# class_backlog CLASS: packets CLASS of $DEV holds.
class_backlog() {
	tc -s class show dev "$DEV" | awk -v c="$1" '
		$1 == "class" { cur = $3 }
		cur == c && $1 == "backlog" { sub("p", "", $3); print $3; exit }'
}

# A flow whose queue drained while CoDel was dropping comes back after 2 s
# of quiet with a burst of 4 datagrams.  Its class (1:12, weight 1) waits
# behind 1:11 (weight 20, 30 flows from pktgen), so even the burst's first
# packet waits longer than target (1 ms), and the whole burst leaves within
# 100 ms, CoDel's interval: a fresh CoDel drops none of it.  One that kept
# its dropping state, with a drop_next 2 s old, drops it all.  Three
# rounds; the long flood before each burst puts CoDel in its dropping state
# (its drops are checked).
test_codel_drained_flow() {
	local r d0 d1 lost=0 phase=0
	dev_setup
	aq train_classes 2 weights 20 1 rate 10mbit target 1ms
	pg_reset
	pg_flow 1 0 0x10011 flag UDPSRC_RND udp_src_min 1 udp_src_max 30
	pg_start
	sleep 1
	for r in 1 2 3; do
		d0=$(class_stat 1:12 dropped)
		$SEND "$DST" 7000 -n 200 -s 1000 -S 7777 -p 0x10012
		for _ in $(seq 100); do
			[ "$(class_backlog 1:12)" = 0 ] && break
			sleep 0.1
		done
		d1=$(class_stat 1:12 dropped)
		phase=$((phase + d1 - d0))
		sleep 2
		$SEND "$DST" 7000 -n 4 -s 1000 -S 7777 -p 0x10012
		sleep 0.5
		lost=$((lost + $(class_stat 1:12 dropped) - d1))
	done
	pg_stop
	echo "CoDel dropped $phase of 3 x 200 in the floods, $lost of 3 x 4 in the returning bursts"
	[ "$phase" -gt 0 ] || fail "CoDel never dropped the flood: the case tests nothing"
	[ "$lost" -le 1 ] || fail "$lost packets of the returning bursts dropped"
}

# --------------------------------------------------------------- DRR ----

# Equal weights, 1:11 fed by pktgen at 0.9 of the link (paced: it never
# queues much, and its class drains and refills all the time), 1:12
# saturating: DRR gives each half.  Behind aiclass's own shaper, and under
# tbf, which dequeues one packet at a time.
drr_paced() {
	pg_reset
	pg_flow 1 0 0x10011 rate 18
	pg_flow 2 1 0x10012
	pg_start
	sleep 3
	window 8 11 12
	pg_stop
	echo "$1: 1:11 $(awk -v a="$W_11" -v t="$W_TOTAL" 'BEGIN { printf "%.1f", 100 * a / t }')%," \
		"1:12 $(awk -v a="$W_12" -v t="$W_TOTAL" 'BEGIN { printf "%.1f", 100 * a / t }')% of $W_TOTAL bytes"
	within_pct "$W_11" "$((W_TOTAL / 2))" 5 "$1: share of the paced class"
	within_pct "$W_12" "$((W_TOTAL / 2))" 5 "$1: share of the saturating class"
}

test_drr_paced_class() {
	dev_setup
	aq train_classes 2 rate 20mbit
	drr_paced "own shaper"
	tc qdisc del dev "$DEV" root
	tc qdisc add dev "$DEV" root handle 10: tbf rate 20mbit burst 3000 \
		latency 200ms
	tc qdisc add dev "$DEV" parent 10:1 handle 1: aiclass train_classes 2
	drr_paced "under tbf"
}

# -------------------------------------------------------- flow table ----

# A full table (16 slots, 300 backlogged flows): a RoCE CNP is placed in
# 1:1 by the RoCE route and must leave through 1:1, not behind the
# elephant whose slot it would share.
test_full_table_cnp() {
	dev_setup
	aq flows 16 rate 10mbit
	pg_reset
	pg_flow 1 0 0x10011 flag UDPSRC_RND udp_src_min 1 udp_src_max 300
	pg_start
	sleep 2
	$SEND "$DST" 4791 -n 1 -b 0x81 -S 7600 -f 200
	sleep 1
	pg_stop
	echo "flows_shared $(aiclass_xstat flows_shared)"
	[ "$(aiclass_xstat flows_shared)" -gt 0 ] ||
		fail "no packet shared a slot: the table was not full"
	check_eq "$(class_stat 1:1 pkts)" 200 "CNPs sent through 1:1"
}

# An elephant in its compute phase keeps its slot while short RPC flows
# churn through its set: a finished flow's slot is taken first.  Then its
# next burst still starts in training (remembered).
test_churn_keeps_elephant() {
	local before
	dev_setup
	aq flows 16 rate 4mbit idle 1ms forget 60s
	$SEND "$DST" 7000 -n 400 -s 1000 -S 7700
	for _ in $(seq 50); do [ "$(qdisc_backlog)" = 0 ] && break; sleep 0.1; done
	[ "$(class_stat 1:11 pkts)" -gt 0 ] || fail "the elephant never reached 1:11"
	# 64 one-packet flows, 2 ms apart: each is over (idle) before the next.
	$SEND "$DST" 7001 -n 1 -s 100 -S 20000 -f 64 -i 0.002 -e
	before=$(class_stat 1:11 pkts)
	$SEND "$DST" 7000 -n 10 -s 1000 -S 7700
	sleep 0.5
	check_eq "$(($(class_stat 1:11 pkts) - before))" 10 \
		"the elephant's next burst in 1:11 after the churn"
}

# ------------------------------------------------------------ chatty ----

# A flow that never queues (200 B every 1 ms beside a training flood,
# served first) stays in 1:1 however many bytes it sends, past elephant;
# a burst that does queue is still demoted.
test_chatty_flow_keeps_band() {
	dev_setup
	aq rate 10mbit
	pg_reset
	pg_flow 1 0 0x10011
	pg_start
	sleep 1
	$SEND "$DST" 7000 -n 1500 -s 200 -i 0.001 -S 7800
	sleep 0.5
	check_eq "$(class_stat 1:1 pkts)" 1500 "chatty flow's packets in 1:1 (300 KB)"
	$SEND "$DST" 7000 -n 400 -s 1000 -S 7801
	sleep 1
	pg_stop
	[ "$(aiclass_xstat demotions)" -ge 2 ] ||
		fail "a queueing burst was not demoted ($(aiclass_xstat demotions) demotions)"
}

# ------------------------------------------------------------ shaper ----

# The shaper counts the times it held the queue back as overlimits, and
# tc warns when rate is set on aiclass as a child.
test_shaper_overlimits_child_warning() {
	local out
	dev_setup
	aq rate 2mbit
	pg_reset
	pg_flow 1 0 0x10011
	pg_start
	sleep 1
	pg_stop
	out=$(tc -s qdisc show dev "$DEV")
	echo "$out" | head -n 3
	echo "$out" | has -E 'overlimits [1-9]' ||
		fail "no overlimits counted by the shaper"
	tc qdisc del dev "$DEV" root
	tc qdisc add dev "$DEV" root handle 10: htb default 1
	tc class add dev "$DEV" parent 10: classid 10:1 htb rate 10mbit
	out=$(tc qdisc add dev "$DEV" parent 10:1 handle 1: aiclass rate 5mbit 2>&1)
	echo "tc: $out"
	echo "$out" | has "rate shapes at the root" ||
		fail "no warning for rate on a child"
	out=$(tc qdisc change dev "$DEV" parent 10:1 handle 1: aiclass rate unlimited 2>&1)
	[ -z "$out" ] || fail "a warning without rate: $out"
	tc qdisc del dev "$DEV" root
}

ktap_header
require_cmd python3
aiclass_load
ktap_plan 7
run_case "parents that peek while CoDel drops: the tree drains" test_peek_parents
run_case "DRR 1:1 with one class paced at 0.9 of the link" test_drr_paced_class
run_case "full flow table: CNPs still leave through 1:1" test_full_table_cnp
run_case "RPC churn through a set keeps a paused elephant remembered" test_churn_keeps_elephant
run_case "a flow that never queues keeps its band past elephant" test_chatty_flow_keeps_band
run_case "shaper counts overlimits, warns as a child" test_shaper_overlimits_child_warning
run_case "a flow drained while CoDel dropped comes back with a fresh CoDel" test_codel_drained_flow
ktap_finish
