#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Netlink fuzzing of aiclass under traffic: nlfuzz.py sends generated and
# mutated RTM_NEWQDISC / RTM_NEWTCLASS / RTM_DELTCLASS messages to the root
# aiclass of a dummy device while pktgen floods it, and checks after every
# message that the dumped configuration is the one its model predicts (a
# refused message changes nothing, an accepted one exactly its options).
# Then the qdisc must still forward, with counters that add up.
#
# AICLASS_FUZZ_SEED (default 1) and AICLASS_FUZZ_COUNT (default 3000) pick
# the messages; the same pair replays the same run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pktgen.sh"

DEV=aicf0
DST=198.18.1.2
SEED=${AICLASS_FUZZ_SEED:-1}
COUNT=${AICLASS_FUZZ_COUNT:-3000}
FUZZ="python3 $TOP/selftests/nlfuzz.py"

test_fuzz_under_traffic() {
	local rc=0
	tc qdisc replace dev "$DEV" root handle 1: aiclass
	pg_reset
	# latency and training priorities, thousands of flows, 64 to 1500
	# bytes; paced, so that the fuzzer keeps a CPU
	pg_flow 1 0 0x10001 delay 300000 flag UDPSRC_RND udp_src_min 1 udp_src_max 5000
	pg_flow 2 1 0x10011 delay 300000 pkt_size 1500
	pg_flow 3 1 0 delay 300000 pkt_size 64 flag UDPSRC_RND udp_src_min 1 udp_src_max 100
	pg_start
	$FUZZ --dev "$DEV" --seed "$SEED" --count "$COUNT" || rc=$?
	pg_stop
	[ "$rc" -eq 0 ] || fail "nlfuzz.py --seed $SEED --count $COUNT failed"
	echo "pktgen offered $(pg_offered) packets meanwhile"
}

test_forwards_after() {
	local before n=2000
	# Whatever the fuzzer left: no shaper, so that the burst drains.
	tc qdisc change dev "$DEV" root aiclass rate 0
	before=$(qdisc_counts)
	pg_burst "$n"
	qdisc_drained
	counts_add_up "$before" "$(pg_offered)"
	read -r s _ <<<"$(qdisc_counts)"
	[ "$s" -gt "${before%% *}" ] || fail "nothing sent after fuzzing"
}

aiclass_load
require_cmd python3
ktap_plan 2
dummy_dev "$DEV" 198.18.1.1/24 || ktap_bail "cannot set up $DEV"
run_case "$COUNT fuzzed netlink messages (seed $SEED), config as modelled" test_fuzz_under_traffic
run_case "still forwards after fuzzing, counters add up" test_forwards_after
ktap_finish
