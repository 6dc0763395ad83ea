#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# aiclass with training traffic in steady state: real TCP (cubic, no ECN,
# GSO/TSO on) through a 20 Mbit bottleneck, measured for 10 s after a
# 6 s warm-up that fills any buffer (20 s after 10 s under plain TCG),
# against fq_codel in the same boot:
# the bulk flows' RTT, DRR weights between TCP classes, memory use; and
# packet-level rules: a RoCE queue pair's acks do not drag its data into
# 1:1, and a crowded flow table never reorders a flow, an overflow drop
# that empties a shared slot included.
. "$(dirname "$0")/lib.sh"

RATE=20mbit
# In deterministic guest time (selftests/run's DETERMINISTIC) a window
# repeats to within a few per cent, and 6 s fill the buffers; under plain
# TCG the host's load moves it, and the longer windows average that out.
if [ "${AICLASS_VM_DETERMINISTIC:-0}" = 1 ]; then
	WARM=6 MEASURE=10 PP_SECS=6
else
	WARM=10 MEASURE=20 PP_SECS=10
fi
SEND="python3 $TOP/selftests/udpsend.py"
RECV="python3 $TOP/selftests/udprecv.py"

# ------------------------------------------------------------- helpers ----

# iperf_servers PORT...: an iperf3 server per port in $RCV.
iperf_servers() {
	local p
	for p in "$@"; do
		ns_bg "$RCV" iperf3 -s -p "$p" >/dev/null
	done
	for p in "$@"; do
		wait_listen "$RCV" "$p"
	done
}

# iperf_client PORT FLOWS SECONDS: bulk TCP from $SND in the background.
iperf_client() {
	ns_bg "$SND" iperf3 -c "$RCV_IP" -p "$1" -P "$2" -t "$3" -J \
		>/dev/null
}

# srtt_median SECONDS PORT: the median smoothed RTT (ms) of $SND's TCP
# connections to PORT, sampled every second for SECONDS.
srtt_median() {
	local end=$((SECONDS + $1)) out
	out=$(mktemp)
	while [ $SECONDS -lt $end ]; do
		ns_exec "$SND" ss -tin "dport = :$2" |
			grep -oE ' rtt:[0-9.]+' | cut -d: -f2 >>"$out"
		sleep 1
	done
	sort -n "$out" | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		print v[int((NR + 1) / 2)] }'
	rm -f "$out"
}

# class_bytes: "CLASS BYTES" for every class of the qdisc under test.
class_bytes() {
	dut_tc -s class show dev "$DUT_DEV" |
		awk '$1 == "class" { c = $3 } $1 == "Sent" { print c, $2 }'
}

# aqm_stat KEY: a qdisc stat of aiclass in the router.
aqm_stat() {
	TCNS=$RTR DEV=$DUT_DEV aiclass_xstat "$1"
}

# bulk_rtt KIND OPTIONS...: the median RTT of 8 bulk TCP flows through the
# bottleneck with KIND as the qdisc under test, after the warm-up.
bulk_rtt() {
	dut_qdisc "$@"
	iperf_client 5201 8 $((WARM + MEASURE + 2))
	sleep "$WARM"
	srtt_median "$MEASURE" 5201
}

# ---------------------------------------------------------------- cases ----

# Forwarded bulk TCP gets no TSQ back-pressure: without AQM it fills the
# buffer (seconds of queue at 20 Mbit).  CoDel on every flow queue keeps
# the queue, and so the RTT, at fq_codel's level; memory stays a fraction
# of memory_limit.
test_bulk_rtt() {
	local fq ai mem
	iperf_servers 5201
	fq=$(bulk_rtt fq_codel)
	sleep 3
	ai=$(bulk_rtt aiclass)
	mem=$(aqm_stat memory_used)
	echo "median RTT of 8 bulk flows: fq_codel ${fq} ms, aiclass ${ai} ms"
	echo "aiclass: memory_used $mem B, aqm drops $(aqm_stat drop_aqm)," \
		"overlimit drops $(aqm_stat drop_overlimit)"
	awk -v a="$ai" -v f="$fq" 'BEGIN { exit !(f > 0 && a <= 1.5 * f) }' ||
		fail "aiclass RTT ${ai} ms is above 1.5x fq_codel's ${fq} ms"
	[ "$mem" -lt $((32 * 1024 * 1024 / 8)) ] ||
		fail "memory_used $mem B is not far below memory_limit (32 MB)"
	[ "$(aqm_stat drop_aqm)" -gt 0 ] || fail "CoDel never dropped"
}

# Three TCP classes weighted 1:2:4, two flows each, all backlogged: byte
# shares within 5 % of 1/7, 2/7, 4/7 once the buffers are full.
test_drr_weights_tcp() {
	local s0 s1 c w got total
	iperf_servers 5211 5212 5213
	dut_qdisc aiclass train_classes 3 weights 1 2 4
	for c in 1 2 3; do
		dut_tc filter add dev "$DUT_DEV" parent 1: protocol ip prio "$c" \
			u32 match ip dport "521$c" 0xffff classid "1:1$c"
		iperf_client "521$c" 2 $((WARM + MEASURE + 2))
	done
	sleep "$WARM"
	s0=$(class_bytes)
	sleep "$MEASURE"
	s1=$(class_bytes)
	total=0
	for c in 11 12 13; do
		got=$(( $(awk -v c="1:$c" '$1 == c { print $2 }' <<<"$s1") -
			$(awk -v c="1:$c" '$1 == c { print $2 }' <<<"$s0") ))
		eval "B_$c=$got"
		total=$((total + got))
	done
	echo "$total bytes in ${MEASURE} s"
	for c in 11 12 13; do
		w=$((1 << (c - 11)))
		within_pct "$(eval echo "\$B_$c")" "$((total * w / 7))" 5 \
			"bytes of 1:$c (weight $w)"
	done
}

# A RoCEv2 queue pair sends data (RDMA WRITE ONLY, opcode 0x0a) and
# acknowledgements (0x11) on one 5-tuple.  Its acks go to 1:1 in queues of
# their own; its data stays in training.
test_roce_qp_acks() {
	local train lat sent_acks=300
	dut_qdisc aiclass rate 8mbit
	# 10 data packets of 1000 bytes, then an ack of 28 bytes, in turn.
	ns_exec "$SND" $SEND "$RCV_IP" 4791 -S 49152 -n $((sent_acks * 11)) \
		-s 1000,1000,1000,1000,1000,1000,1000,1000,1000,1000,28 \
		-b 0x0a,0x0a,0x0a,0x0a,0x0a,0x0a,0x0a,0x0a,0x0a,0x0a,0x11
	sleep 6
	read -r lat lat_bytes <<<"$(dut_tc -s class show dev "$DUT_DEV" | awk '
		$1 == "class" { c = $3 }
		c == "1:1" && $1 == "Sent" { print $4, $2; exit }')"
	train=$(dut_tc -s class show dev "$DUT_DEV" | awk '
		$1 == "class" { c = $3 } c == "1:11" && $1 == "Sent" { print $2; exit }')
	echo "1:1 sent $lat packets ($lat_bytes bytes) for $sent_acks acks;" \
		"1:11 sent $train bytes"
	echo "flows moved $(aqm_stat flows_moved), roce $(aqm_stat cls_roce)"
	[ "$lat" -le $((sent_acks + 10)) ] ||
		fail "1:1 sent $lat packets, more than the $sent_acks acks"
	awk -v t="$train" -v l="$lat_bytes" 'BEGIN {
		printf "training carried %.1f%% of the QP bytes\n", 100 * t / (t + l)
		exit !(t / (t + l) >= 0.9) }' ||
		fail "training carried under 90 % of the QP's bytes"
	check_eq "$(aqm_stat flows_moved)" 0 "queues moved between classes"
}

# 64 flows in a 16-slot table (two sets of eight ways): 16 flows get a
# slot, 48 share one, so some slots hold far more packets than others.
# Once the light slots have drained, every flow sends again: a flow whose
# older packets still wait in a shared slot must not overtake them from a
# slot of its own.  The receiver checks every flow's order.
test_crowded_table_order() {
	local out res
	out=$(mktemp)
	dut_qdisc aiclass flows 16 rate 80kbit quantum 256 target 1s interval 10s
	ns_bg "$RCV" $RECV 7000 --quiet 3 --timeout 60 --ready "$out.ready" \
		>"$out"
	for _ in $(seq 50); do [ -e "$out.ready" ] && break; sleep 0.1; done
	ns_exec "$SND" $SEND "$RCV_IP" 7000 -S 40000 -f 64 -n 3 -s 200 -p 0x10011
	sleep 1.5
	ns_exec "$SND" $SEND "$RCV_IP" 7000 -S 40000 -f 64 -n 1 -q 3 -s 200 \
		-p 0x10011
	for _ in $(seq 150); do [ -s "$out" ] && break; sleep 0.2; done
	res=$(cat "$out")
	rm -f "$out" "$out.ready"
	echo "receiver: $res; flows_shared $(aqm_stat flows_shared)"
	[ "$(aqm_stat flows_shared)" -gt 0 ] ||
		fail "no flow shared a slot: the case tests nothing"
	read -r _ got _ reord _ flows <<<"$res"
	check_eq "$flows" 64 "flows received"
	check_eq "$reord" 0 "datagrams received out of order"
	check_eq "$got" $((64 * 4)) "datagrams received"
}

# A packet whose set is full shares its home slot.  When the room it needs
# is made by dropping that slot's only packet (the fattest training flow),
# the slot must stay marked shared: unmarked, the flow's next packet takes
# a slot that has since emptied, in 1:1, and overtakes the first, still
# waiting in 1:11.  The hashes are pinned (pinhash.bpf.c) so that, in a
# 16-slot table (set 0: slots 0-7): five 1434-byte packets of set 1 spend
# the 80 kbit/s shaper's slack (4 quanta, 606 ms) and hold it ~110 ms
# more; seven auto flows C (slots 1-7, 1:1), A (placed in 1:11, slot 0)
# and 8 packets of an auto flow of set 1 fill the limit (16); B's first
# packet, home slot 0, shares it and the drop of A makes its room.  A
# 134-byte packet leaves every 13.4 ms, C first, training last: B's
# second packet comes 200 ms later, when C's slots have drained and 1:1
# still holds packets (from ~95 to ~310 ms after B's first).
test_overflow_keeps_shared_mark() {
	local out res steps i g9
	out=$(mktemp)
	dut_qdisc aiclass flows 16 limit 16 rate 80kbit train_share 0
	pinhash_filter
	# A's key is its hash and class 1:11's (idx 8) aiclass_placed_key().
	g9=$(((9 * 0x61C88647) & 0xffffffff))
	steps=
	for i in 1 2 3 4 5; do
		steps+=" 0x108:0:1:$i:1400"
	done
	steps+=" sleep:0.02"
	for i in 1 2 3 4 5 6 7; do
		steps+=" $((0x200 + i)):0:$((10 + i)):1:100"
	done
	steps+=" $((0x100 ^ g9)):0x10011:2:1:1000"
	for i in 1 2 3 4 5 6 7 8; do
		steps+=" 0x109:0:4:$i:100"
	done
	steps+=" 0x300:0:3:1:100 sleep:0.2 0x300:0:3:2:100"
	ns_bg "$RCV" python3 "$TOP/selftests/rawflow.py" recv --quiet 3 \
		--ready "$out.ready" >"$out"
	for _ in $(seq 50); do [ -e "$out.ready" ] && break; sleep 0.1; done
	# shellcheck disable=SC2086
	ns_exec "$SND" python3 "$TOP/selftests/rawflow.py" send "$RCV_IP" $steps
	for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.1; done
	res=$(cat "$out")
	rm -f "$out" "$out.ready"
	echo "received in order: $res"
	echo "drop_overlimit $(aqm_stat drop_overlimit) flows_shared $(aqm_stat flows_shared)"
	check_eq "$(aqm_stat drop_overlimit)" 1 "over-limit drops (A's packet)"
	[ "$(aqm_stat flows_shared)" -ge 1 ] ||
		fail "B never shared slot 0: the case tests nothing"
	check_eq "$(wc -w <<<"$res")" 22 "packets received"
	check_eq "$(tr ' ' '\n' <<<"$res" | grep -x '3:[12]' | paste -sd' ')" \
		"3:1 3:2" "B's packets in arrival order"
}

# Below 1 Gbit/s GSO packets are split, so no 64 KB super-packet holds
# the link in front of an RPC: behind aiclass's own shaper.  Without one
# the device's link speed decides, never a measured rate (after an idle
# gap it reads as a slow link): a veth says 10 Gbit/s, so nothing is split
# there, under an htb parent that paces it at 15 Mbit/s either;
# no_split_gso keeps them whole.  The packets: 40 UDP GSO packets of 60
# segments of 1000 bytes, from the sender's own device.
split_run() {
	ns_exec "$SND" tc qdisc del dev "$SND_IF" root 2>/dev/null || true
	case $1 in
	htb)
		ns_exec "$SND" tc qdisc add dev "$SND_IF" root handle 100: \
			htb default 1
		ns_exec "$SND" tc class add dev "$SND_IF" parent 100: \
			classid 100:1 htb rate 15mbit ceil 15mbit
		ns_exec "$SND" tc qdisc add dev "$SND_IF" parent 100:1 \
			handle 1: aiclass "$2"
		;;
	rate)
		ns_exec "$SND" tc qdisc add dev "$SND_IF" root handle 1: \
			aiclass rate 15mbit "$2"
		;;
	*)
		ns_exec "$SND" tc qdisc add dev "$SND_IF" root handle 1: \
			aiclass "$2"
		;;
	esac
	ns_exec "$SND" $SEND "$RCV_IP" 5299 -n 40 -s 60000 -g 1000 -i 0.05 \
		-p 0x10011
	sleep 2
	SPLIT=$(TCNS=$SND DEV=$SND_IF aiclass_xstat gso_split)
	echo "$1, $2: $SPLIT of 40 GSO packets split"
}

test_split_gso() {
	echo "$SND_IF: $(ns_exec "$SND" ethtool "$SND_IF" | grep -i speed)"
	split_run rate split_gso
	check_eq "$SPLIT" 40 "GSO packets split behind the shaper"
	split_run fast split_gso
	check_eq "$SPLIT" 0 "GSO packets split on a 10 Gbit/s device"
	split_run htb split_gso
	check_eq "$SPLIT" 0 "GSO packets split under a 15 Mbit htb on a 10 Gbit/s device"
	split_run rate no_split_gso
	check_eq "$SPLIT" 0 "GSO packets split with no_split_gso"
	ns_exec "$SND" tc qdisc del dev "$SND_IF" root
}

# A chatty flow that never queues (a back-to-back 200 B TCP ping-pong, as
# token streaming or a parameter server's small updates) beside 8 bulk
# flows: aiclass keeps all of its bytes in 1:1, never demoted by how much
# it sends, and its p99 is no worse than cake's in the same boot (cake
# and fq_codel keep such sparse flows ahead too).
pingpong_p99() {
	local out
	out=$(mktemp)
	ns_exec "$SND" sockperf ping-pong --tcp -i "$RCV_IP" -p 11111 -m 200 \
		-t "$PP_SECS" >"$out" 2>&1
	PP_MSGS=$(grep -oE 'SentMessages=[0-9]+' "$out" | head -n 1 | cut -d= -f2)
	PP_P99=$(awk '/percentile 99.000/ { print $NF; exit }' "$out")
	rm -f "$out"
}

# pingpong_round QDISC: QDISC at the bottleneck, 8 TCP flows through it for
# an 8 s warm-up, then the ping-pong (pingpong_p99 sets PP_P99, PP_MSGS);
# PP_LAT_BYTES: what went through 1:1 meanwhile (aiclass only); returns
# when the flows have ended.
pingpong_round() {
	local b0
	dut_qdisc "$1"
	iperf_client 5201 8 $((8 + PP_SECS + 4))
	sleep 8
	[ "$1" != aiclass ] || b0=$(class_bytes | awk '$1 == "1:1" { print $2 }')
	pingpong_p99
	[ "$1" != aiclass ] ||
		PP_LAT_BYTES=$(($(class_bytes | awk '$1 == "1:1" { print $2 }') - b0))
	sleep 5
}

test_chatty_pingpong() {
	local cake
	iperf_servers 5201
	ns_bg "$RCV" sockperf server --tcp -i "$RCV_IP" -p 11111 >/dev/null
	wait_listen "$RCV" 11111
	pingpong_round cake
	cake=$PP_P99
	pingpong_round aiclass
	echo "ping-pong p99: aiclass ${PP_P99} us, cake ${cake} us; $PP_MSGS requests, $PP_LAT_BYTES bytes through 1:1"
	[ -n "$PP_MSGS" ] && [ "$PP_MSGS" -gt 100 ] || fail "the ping-pong hardly ran"
	[ "$PP_LAT_BYTES" -ge $((PP_MSGS * 240 * 99 / 100)) ] ||
		fail "less than 99 % of the ping-pong's bytes in 1:1"
	# Measured 1.11x cake's (deterministic guest time, 6.1); demoted as
	# bulk, the module before this rule had 1.9x in issue 23's run.
	awk -v a="$PP_P99" -v c="$cake" 'BEGIN { exit !(a <= 1.25 * c) }' ||
		fail "ping-pong p99 ${PP_P99} us above 1.25x cake's ${cake} us"
}

# TCP picks a new hash for its socket after a retransmission timeout
# (sk_rethink_txhash): a flow keyed by skb->hash would come back as a new
# flow, in 1:1, ahead of its own training packets.  aiclass keys by the
# 5-tuple: a bulk flow demoted to training on the sender's own egress
# (aiclass at its root, shaping at 10 Mbit) stays there across a timeout
# that 1.5 s of lost ACKs force.
test_rto_rehash_keeps_class() {
	local b0 b1 t0 t1
	dut_qdisc pfifo		# the router's bottleneck as dumbbell_setup left it
	ns_exec "$SND" tc qdisc add dev "$SND_IF" root handle 1: aiclass \
		rate 10mbit forget 60s
	defer ns_exec "$SND" tc qdisc del dev "$SND_IF" root
	iperf_servers 5202
	ns_bg "$SND" iperf3 -c "$RCV_IP" -p 5202 -t 14 >/dev/null
	sleep 5
	b0=$(snd_class_bytes 1:1)
	t0=$(ns_exec "$SND" nstat -az TcpExtTCPTimeouts | awk '$1 == "TcpExtTCPTimeouts" { print $2 }')
	ns_exec "$RCV" tc qdisc change dev "$RCV_IF" root netem delay 5ms loss 100%
	sleep 1.5
	ns_exec "$RCV" tc qdisc change dev "$RCV_IF" root netem delay 5ms
	sleep 4
	b1=$(snd_class_bytes 1:1)
	t1=$(ns_exec "$SND" nstat -az TcpExtTCPTimeouts | awk '$1 == "TcpExtTCPTimeouts" { print $2 }')
	echo "timeouts $((t1 - t0)); bytes through 1:1 across them: $((b1 - b0)); in 1:11: $(snd_class_bytes 1:11)"
	ns_exec "$SND" tc -s class show dev "$SND_IF" | awk '$1 == "class" { c = $3 } $1 == "Sent" { printf "%s %s  ", c, $2 } END { print "" }'
	[ $((t1 - t0)) -gt 0 ] || fail "no retransmission timeout: the case tests nothing"
	[ "$(snd_class_bytes 1:11)" -gt 1000000 ] ||
		fail "the bulk flow never reached training"
	[ $((b1 - b0)) -lt 3000 ] ||
		fail "$((b1 - b0)) bytes of the flow went through 1:1 after its timeouts"
}

# train_lat_bytes: "TRAINING LATENCY", the bytes the qdisc under test sent
# through its training classes (1:11 up) and its latency bands.
train_lat_bytes() {
	dut_tc -s class show dev "$DUT_DEV" | awk '
		$1 == "class" { split($3, a, ":"); k = $2 == "aiclass" ? length(a[2]) : 0 }
		$1 == "Sent" && k >= 2 { t += $2 } $1 == "Sent" && k == 1 { l += $2 }
		END { print t + 0, l + 0 }'
}

# A sender that loses its CPU for longer than idle (a descheduled thread
# or vCPU: issue 23's busy-host runs put 5.5 and 54 % of a collective's
# bytes in training) cuts each flow into bursts while the qdisc drains it
# between them; no burst reaches elephant.  netem slot on the sender's
# egress makes the gaps deterministic: every 20 ms the held packets leave
# at once.  8 NCCL-like flows (256 KB steps, 2-20 ms compute gaps) must
# still be training once their sessions have queued two elephants: >= 90 %
# of the bytes after a 10 s warm-up (the module before sessions: 0 % of
# 48 MB over 20 s, every burst restarted in 1:1).
test_stalled_sender_collective() {
	local r0 r1 t0 l0 t1 l1
	dut_qdisc aiclass
	ns_exec "$SND" tc qdisc add dev "$SND_IF" root netem slot 20ms 20ms
	defer ns_exec "$SND" tc qdisc del dev "$SND_IF" root
	ns_bg "$RCV" python3 "$TOP/tools/bench/collective.py" server --port 7100
	wait_listen "$RCV" 7100
	ns_bg "$SND" python3 "$TOP/tools/bench/collective.py" client --dst "$RCV_IP" \
		--port 7100 --flows 8 --step 262144 --gap-min 0.002 --gap-max 0.02 \
		--duration 20 --out /tmp/stalled-coll.json
	sleep 10
	read -r t0 l0 <<<"$(train_lat_bytes)"
	r0=$(($(aqm_stat idle_resets) + $(aqm_stat remembered)))
	sleep 8
	read -r t1 l1 <<<"$(train_lat_bytes)"
	r1=$(($(aqm_stat idle_resets) + $(aqm_stat remembered)))
	echo "after the warm-up: $((t1 - t0)) bytes in training, $((l1 - l0)) in latency bands; bursts cut by the slots $((r1 - r0))"
	[ $((r1 - r0)) -ge 100 ] || fail "the slots did not cut the flows into bursts: the case tests nothing"
	[ $((t1 - t0 + l1 - l0)) -gt 4000000 ] || fail "the collective hardly ran"
	[ $(((t1 - t0) * 10)) -ge $(((t1 - t0 + l1 - l0) * 9)) ] ||
		fail "less than 90 % of the stalled collective's bytes in training"
	sleep 3
}

# snd_class_bytes CLASS: bytes CLASS of aiclass on $SND_IF sent.
snd_class_bytes() {
	ns_exec "$SND" tc -s class show dev "$SND_IF" | awk -v c="$1" '
		$1 == "class" { cur = $3 } cur == c && $1 == "Sent" { print $2; exit }'
}

ktap_header
require_cmd iperf3 ss ethtool python3 sockperf nstat
aiclass_load
ktap_plan 9
dumbbell_setup -r "$RATE" -d 5ms
ns_exec "$SND" sysctl -qw net.ipv4.tcp_ecn=0 net.ipv4.tcp_congestion_control=cubic
run_case "bulk TCP RTT within 1.5x fq_codel's, memory far below the limit" test_bulk_rtt
run_case "DRR 1:2:4 between TCP classes within 5 % in steady state" test_drr_weights_tcp
run_case "a RoCE QP's acks do not drag its data into 1:1" test_roce_qp_acks
run_case "a crowded flow table never reorders a flow" test_crowded_table_order
run_case "an overflow drop that empties a shared slot keeps it shared" test_overflow_keeps_shared_mark
run_case "GSO packets split below 1 Gbit/s of rate or link speed only" test_split_gso
run_case "a TCP flow's class survives the rehash of its timeouts" test_rto_rehash_keeps_class
run_case "a chatty ping-pong stays in 1:1, p99 within 1.25x cake's" test_chatty_pingpong
run_case "a collective whose sender stalls past idle is still training" test_stalled_sender_collective
ktap_finish
