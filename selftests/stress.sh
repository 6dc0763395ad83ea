#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stress under faults: traffic through aiclass while, in loops, every option
# changes, class weights change, filters come and go, the qdisc is replaced
# and deleted, the link flaps, the module is asked to unload, flows far
# outnumber the flow table, packets of every size from 60 bytes to 64 KB
# (pktgen, and TCP with GSO over veth) go through, and the memory limit is
# hit; aiclass under mq on a 4-queue veth and under htb.
#
# After every case nothing may have leaked: the backlog returns to 0, the
# counters add up (packets offered = sent + dropped + backlog, pktgen's
# counts giving "offered"), memory_used and active_flows return to 0, and
# the kernel logged no warning (the runner checks the whole run as well).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pktgen.sh"

DEV=aics0
DST=198.18.2.2
ROUNDS=${AICLASS_STRESS_ROUNDS:-2}

# dummy_setup: $DEV, with room for 64 KB packets.
dummy_setup() {
	dummy_dev "$DEV" 198.18.2.1/24 65535
}

# report_mark / no_report: kernel reports logged since the mark fail the
# case here, so that the case that caused one is named.
report_mark() {
	DMESG_MARK=$(dmesg | wc -l)
}

no_report() {
	local new
	new=$(dmesg | tail -n +"$((DMESG_MARK + 1))" |
		grep -E 'WARNING:|BUG:|Oops|general protection|KASAN|UBSAN|circular locking|suspected memory leak|RCU stall|hung task' || true)
	[ -z "$new" ] || fail "kernel report: $new"
}

# idle_clean [PARENT]: drained and nothing left accounted.
idle_clean() {
	qdisc_drained "$@"
	check_eq "$(aiclass_xstat memory_used "$@")" 0 "memory_used when empty"
	check_eq "$(aiclass_xstat active_flows "$@")" 0 "active_flows when empty"
}

# flood: training and latency pktgen sources into $DEV, paced.
flood() {
	pg_reset
	pg_flow 1 0 0x10011 delay 500000 flag UDPSRC_RND udp_src_min 1 udp_src_max 50
	pg_flow 2 0 0x10012 delay 500000 pkt_size 1500
	pg_flow 3 1 0 delay 500000 pkt_size 200 flag UDPSRC_RND udp_src_min 1 udp_src_max 3000
	pg_flow 4 1 0x10001 delay 1000000 pkt_size 100
	pg_start
}

finish_counts() {
	pg_stop
	tc qdisc change dev "$DEV" root aiclass rate 0
	idle_clean
	counts_add_up "0 0 0" "$(pg_offered)"
}

# burst_after_flood: stop the flood and the shaper; once the qdisc is idle
# and clean, a burst of 1000 packets goes through it, the counters add up
# and it is clean again.  BURST_BEFORE: qdisc_counts before the burst.
burst_after_flood() {
	pg_stop
	tc qdisc change dev "$DEV" root aiclass rate 0
	idle_clean
	BURST_BEFORE=$(qdisc_counts)
	pg_burst 1000
	idle_clean
	counts_add_up "$BURST_BEFORE" "$(pg_offered)"
}

# ---------------------------------------------------------------- cases ----

test_change_every_option() {
	local r
	report_mark
	dummy_setup
	tc qdisc add dev "$DEV" root handle 1: aiclass rate 20mbit limit 2000
	flood
	for ((r = 0; r < ROUNDS; r++)); do
		tc qdisc change dev "$DEV" root aiclass lat_bands $((r % 8 + 1))
		tc qdisc change dev "$DEV" root aiclass train_classes 16 default_class 1:20
		tc qdisc change dev "$DEV" root aiclass weights 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16
		tc qdisc change dev "$DEV" root aiclass default_class 1:11 train_classes 2
		tc qdisc change dev "$DEV" root aiclass lat_bands 8 elephant 1mb
		tc qdisc change dev "$DEV" root aiclass thresholds 100 200 300 400 500 600 700
		tc qdisc change dev "$DEV" root aiclass lat_bands 3 elephant 64kb
		tc qdisc change dev "$DEV" root aiclass burst 2kb train_share 90
		tc qdisc change dev "$DEV" root aiclass burst 64mb train_share 0
		tc qdisc change dev "$DEV" root aiclass idle 10us
		tc qdisc change dev "$DEV" root aiclass idle 10s
		tc qdisc change dev "$DEV" root aiclass flows 16
		tc qdisc change dev "$DEV" root aiclass flows 65536
		tc qdisc change dev "$DEV" root aiclass limit 16
		tc qdisc change dev "$DEV" root aiclass limit 5000
		tc qdisc change dev "$DEV" root aiclass memory_limit 64kb
		tc qdisc change dev "$DEV" root aiclass memory_limit 256mb
		tc qdisc change dev "$DEV" root aiclass ce_threshold 1us
		tc qdisc change dev "$DEV" root aiclass ce_threshold 0
		tc qdisc change dev "$DEV" root aiclass rate 1mbit
		tc qdisc change dev "$DEV" root aiclass rate 100mbit
		tc qdisc change dev "$DEV" root aiclass noroce
		tc qdisc change dev "$DEV" root aiclass roce_port 9
		tc qdisc change dev "$DEV" root aiclass priomap 1:1 1:2 1:11 1:12 auto auto auto auto \
			auto auto auto auto auto auto auto 1:3
		tc qdisc change dev "$DEV" root aiclass lat_limit 1
		tc qdisc change dev "$DEV" root aiclass lat_limit 1000
		tc qdisc change dev "$DEV" root aiclass quantum 256
		tc qdisc change dev "$DEV" root aiclass quantum 1mb
		tc qdisc change dev "$DEV" root aiclass quantum 1514 rate 20mbit
		tc class change dev "$DEV" classid 1:11 aiclass weight 1000
		tc class change dev "$DEV" classid 1:12 aiclass weight 1
		tc filter add dev "$DEV" parent 1: protocol ip prio 1 u32 \
			match ip protocol 17 0xff classid 1:2
		tc filter add dev "$DEV" parent 1: protocol ip prio 2 matchall \
			classid 1:12
		tc filter add dev "$DEV" parent 1: protocol ip prio 3 flower \
			ip_proto udp dst_port 9 action drop
		tc filter del dev "$DEV" parent 1: prio 1
		tc filter del dev "$DEV" parent 1: prio 3
		rmmod sch_aiclass 2>/dev/null && fail "rmmod succeeded with aiclass in use"
		tc filter del dev "$DEV" parent 1:
		tc qdisc change dev "$DEV" root aiclass priomap auto auto auto auto \
			auto auto auto auto auto auto auto auto auto auto auto auto
	done
	finish_counts
	echo "$(aiclass_xstat flows_moved) flow moves, $(aiclass_xstat drop_overlimit) + $(aiclass_xstat drop_memory) + $(aiclass_xstat drop_filter) + $(aiclass_xstat drop_band) drops"
	no_report
}

test_replace_delete() {
	local r
	report_mark
	dummy_setup
	flood
	for ((r = 0; r < ROUNDS * 2; r++)); do
		tc qdisc replace dev "$DEV" root handle 1: aiclass rate 10mbit
		sleep 0.2
		tc qdisc replace dev "$DEV" root handle 1: aiclass flows 16 limit 100
		tc qdisc replace dev "$DEV" root handle 2: aiclass train_classes 16
		sleep 0.2
		tc qdisc replace dev "$DEV" root handle 3: pfifo
		tc qdisc replace dev "$DEV" root handle 1: aiclass rate 5mbit
		sleep 0.2
		tc qdisc del dev "$DEV" root
		tc qdisc add dev "$DEV" root handle 1: aiclass rate 5mbit
		rmmod sch_aiclass 2>/dev/null && fail "rmmod succeeded with aiclass in use"
	done
	# the last instance still forwards and accounts
	burst_after_flood
	# and once no qdisc uses it, the module unloads and comes back
	tc qdisc del dev "$DEV" root
	aiclass_unload
	aiclass_load
	no_report
}

test_link_flap() {
	local r before
	report_mark
	dummy_setup
	for ((r = 0; r < ROUNDS; r++)); do
		tc qdisc replace dev "$DEV" root handle 1: aiclass rate 5mbit
		flood
		sleep 0.5
		[ "$(qdisc_backlog)" -gt 0 ] || fail "no backlog built before the flap"
		ip link set "$DEV" down
		pg_stop
		check_eq "$(qdisc_backlog)" 0 "backlog after link down"
		check_eq "$(aiclass_xstat memory_used)" 0 "memory_used after link down"
		ip link set "$DEV" up
		tc qdisc change dev "$DEV" root aiclass rate 0
		before=$(qdisc_counts)
		pg_burst 1000
		idle_clean
		counts_add_up "$before" "$(pg_offered)"
		read -r s _ <<<"$(qdisc_counts)"
		[ "$s" -gt "${before%% *}" ] ||
			fail "nothing sent after the link came back: $(aiclass_xstat drop_memory) drop_memory, $(aiclass_xstat drop_overlimit) drop_overlimit"
	done
	no_report
}

# The flow whose packets a reset purged keeps their memory in its own count
# unless the reset clears it too: when that flow is later demoted to
# training with packets queued, the training memory count takes the stale
# bytes along and never gives them back; once the queue drains, the
# latency side's room (memory_used - train_mem) wraps around and every
# packet is dropped as over memory.
test_link_flap_then_demote() {
	local s
	report_mark
	dummy_setup
	tc qdisc add dev "$DEV" root handle 1: aiclass rate 2mbit lat_bands 1 elephant 8kb
	pg_reset
	pg_flow 1 0 0 delay 500000
	pg_start
	sleep 1
	[ "$(qdisc_backlog)" -gt 0 ] || fail "no backlog before the flap"
	ip link set "$DEV" down
	pg_stop
	ip link set "$DEV" up
	# the same flow again: a new burst in 1:1, demoted past 8 KB while queued
	pg_reset
	pg_flow 1 0 0 delay 500000
	pg_start
	sleep 1
	burst_after_flood
	read -r s _ <<<"$(qdisc_counts)"
	[ "$s" -gt "${BURST_BEFORE%% *}" ] ||
		fail "nothing sent: $(aiclass_xstat drop_memory) drop_memory, $(aiclass_xstat flows_moved) flows moved"
	check_eq "$(aiclass_xstat drop_memory)" 0 "drops over memory_limit (32 MB, far away)"
	no_report
}

test_flows_beyond_table() {
	report_mark
	dummy_setup
	tc qdisc add dev "$DEV" root handle 1: aiclass flows 16 rate 20mbit
	pg_reset
	pg_flow 1 0 0 delay 100000 flag UDPSRC_RND udp_src_min 1 udp_src_max 60000
	pg_flow 2 1 0x10011 delay 100000 flag UDPDST_RND udp_dst_min 1 udp_dst_max 60000
	pg_start
	sleep 3
	# The 16 slots, and the spill queue of each of the 7 classes for the
	# placed packets (1:11) that find no slot.
	[ "$(aiclass_xstat active_flows)" -le $((16 + 7)) ] ||
		fail "active_flows $(aiclass_xstat active_flows) > 16 slots + 7 spill queues"
	tc qdisc change dev "$DEV" root aiclass flows 64
	sleep 1
	tc qdisc change dev "$DEV" root aiclass flows 16
	finish_counts
	no_report
}

test_every_size() {
	local size before total=0
	report_mark
	dummy_setup
	tc qdisc add dev "$DEV" root handle 1: aiclass memory_limit 1mb limit 200
	before=$(qdisc_counts)
	pg_burst_sources 100
	for size in 60 61 63 64 65 127 128 255 256 511 512 1023 1024 1499 1500 \
		1514 1515 2048 4095 4096 8191 9000 16383 16384 32767 32768 \
		50000 65000; do
		pg_cmd "$DEV@1" "pkt_size $size"
		pg_cmd "$DEV@2" "pkt_size $size"
		pg_run
		total=$((total + $(pg_offered)))
	done
	idle_clean
	counts_add_up "$before" "$total"
	no_report
}

test_memory_pressure() {
	local i used max=0
	report_mark
	dummy_setup
	tc qdisc add dev "$DEV" root handle 1: aiclass memory_limit 64kb rate 2mbit
	pg_reset
	pg_flow 1 0 0x10011 delay 20000 pkt_size 1500 flag UDPSRC_RND udp_src_min 1 udp_src_max 20
	pg_flow 2 1 0 delay 50000 pkt_size 9000
	pg_start
	for ((i = 0; i < 10; i++)); do
		used=$(aiclass_xstat memory_used)
		[ "$used" -le 65536 ] || fail "memory_used $used > memory_limit 65536"
		[ "$used" -le "$max" ] || max=$used
		sleep 0.2
	done
	echo "memory_used up to $max of 65536, $(aiclass_xstat drop_memory) memory drops"
	[ "$(aiclass_xstat drop_memory)" -gt 0 ] || fail "no memory drops at the limit"
	finish_counts
	no_report
}

test_tcp_gso_veth() {
	local out=/tmp/stress-iperf3.json gso i
	report_mark
	require_cmd iperf3
	ns_create aics-a aics-b
	veth_pair aics-a va aics-b vb
	ip -n aics-a addr add 198.18.3.1/24 dev va
	ip -n aics-b addr add 198.18.3.2/24 dev vb
	gso=$(ip netns exec aics-a ethtool -k va | awk '/generic-segmentation-offload/ { print $2 }')
	echo "veth GSO: $gso"
	[ "$gso" = on ] || skip "GSO off on veth"
	ip netns exec aics-a tc qdisc add dev va root handle 1: aiclass limit 300 memory_limit 2mb
	ns_bg aics-b iperf3 -s -1 >/dev/null
	wait_listen aics-b 5201
	ip netns exec aics-a iperf3 -c 198.18.3.2 -t 4 -P 4 -J >"$out"
	echo "TCP over veth with GSO: $(iperf3_mbit "$out") Mbit/s"
	for ((i = 0; i < 100; i++)); do
		ip netns exec aics-a tc -s qdisc show dev va | has "backlog 0b 0p" && break
		sleep 0.1
	done
	ip netns exec aics-a tc -s qdisc show dev va | sed -n 1,3p
	ip netns exec aics-a tc -s qdisc show dev va | has "backlog 0b 0p" ||
		fail "backlog left on va"
	# shellcheck disable=SC2034  # TCNS is aiclass_xstat's
	DEV=va TCNS=aics-a
	check_eq "$(aiclass_xstat memory_used)" 0 "memory_used when empty"
	check_eq "$(aiclass_xstat active_flows)" 0 "active_flows when empty"
	no_report
}

test_under_mq() {
	local q sum=0 offered
	report_mark
	ip link del aicm0 2>/dev/null || true
	ip link add aicm0 numtxqueues 4 numrxqueues 4 type veth peer name aicm1 \
		numtxqueues 4 numrxqueues 4
	defer ip link del aicm0
	ip link set aicm1 up
	ip link set aicm0 up
	sysctl -qw net.ipv6.conf.aicm0.disable_ipv6=1 net.ipv6.conf.aicm1.disable_ipv6=1
	ip addr add 198.18.4.1/24 dev aicm0
	tc qdisc add dev aicm0 root handle 100: mq
	for q in 1 2 3 4; do
		tc qdisc replace dev aicm0 parent 100:$q handle $q: aiclass \
			limit 200 rate 20mbit
	done
	DEV=aicm0
	DST=198.18.4.2
	pg_reset
	pg_flow 1 0 0 delay 100000 flag UDPSRC_RND udp_src_min 1 udp_src_max 1000
	pg_flow 2 1 0 delay 100000 pkt_size 1500 flag UDPDST_RND udp_dst_min 1 udp_dst_max 1000
	pg_start
	sleep 2
	for q in 1 2 3 4; do
		tc qdisc change dev aicm0 parent 100:$q aiclass flows 16 lat_bands 1
		tc qdisc change dev aicm0 parent 100:$q aiclass flows 1024 lat_bands 3
	done
	tc qdisc replace dev aicm0 parent 100:2 handle 22: aiclass rate 20mbit
	pg_stop
	for q in 1 3 4; do
		tc qdisc change dev aicm0 parent 100:$q aiclass rate 0
	done
	tc qdisc change dev aicm0 parent 100:2 aiclass rate 0
	for q in 1 2 3 4; do
		idle_clean 100:$q
	done
	tc -s qdisc show dev aicm0 | grep -c "^qdisc aiclass" | has -x 4 ||
		fail "not 4 aiclass children: $(tc qdisc show dev aicm0)"
	# mq sums its children: all four queues carried traffic
	for q in 1 3 4; do
		read -r s _ <<<"$(qdisc_counts 100:$q)"
		[ "$s" -gt 0 ] || fail "queue $q carried nothing"
	done
	# counters of the instances that lived through: a fresh burst
	before=$(qdisc_counts)
	pg_burst 2000
	for q in 1 2 3 4; do
		idle_clean 100:$q
	done
	counts_add_up "$before" "$(pg_offered)"
	no_report
}

test_under_htb() {
	local before
	report_mark
	dummy_setup
	tc qdisc add dev "$DEV" root handle 1: htb default 10
	tc class add dev "$DEV" parent 1: classid 1:10 htb rate 20mbit
	tc qdisc add dev "$DEV" parent 1:10 handle 10: aiclass limit 100 memory_limit 256kb
	flood
	sleep 1
	tc qdisc change dev "$DEV" parent 1:10 aiclass limit 16
	tc qdisc change dev "$DEV" parent 1:10 aiclass flows 16 lat_bands 1 train_classes 1
	tc qdisc change dev "$DEV" parent 1:10 aiclass limit 1000 memory_limit 64kb
	tc class change dev "$DEV" parent 1: classid 1:10 htb rate 5mbit
	sleep 1
	tc qdisc replace dev "$DEV" parent 1:10 handle 11: aiclass limit 50
	sleep 0.5
	pg_stop
	tc class change dev "$DEV" parent 1: classid 1:10 htb rate 1gbit
	idle_clean 1:10
	qdisc_drained root
	# htb's own view must agree: its backlog back to 0, counters add up
	before=$(qdisc_counts)
	pg_burst 2000
	idle_clean 1:10
	qdisc_drained root
	counts_add_up "$before" "$(pg_offered)"
	no_report
}

aiclass_load
require_cmd python3
ktap_plan 10
run_case "change every option, weights, filters, unload attempts under traffic" test_change_every_option
run_case "replace and delete under traffic, unload after" test_replace_delete
run_case "link down/up with a backlog, forwards after" test_link_flap
run_case "link down/up, then the same flow demoted: no memory drift" test_link_flap_then_demote
run_case "flows far beyond the flow table" test_flows_beyond_table
run_case "every size from 60 bytes to 64 KB" test_every_size
run_case "memory pressure at memory_limit" test_memory_pressure
run_case "TCP with GSO over veth" test_tcp_gso_veth
run_case "four aiclass under mq on a 4-queue veth" test_under_mq
run_case "aiclass under htb, htb's counters agree" test_under_htb
ktap_finish
