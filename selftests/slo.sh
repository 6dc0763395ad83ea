#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The latency SLO of a band in steady state: 4 bulk TCP flows keep the
# training side of a 10 Mbit aiclass (its own shaper) full while an
# inference load of 4-datagram UDP responses, placed in 1:1 by the dscpmap
# (and once by the auto route), is ramped from 30 % to 200 % of what 1:1
# can carry; the band's own counters say how many of its packets left
# within the SLO, and how many flows it downgraded.  Deterministic guest
# time (selftests/run's DETERMINISTIC).
. "$(dirname "$0")/lib.sh"

RATE=10mbit
SLO_US=10000
SIZE=1400
BURST=4
WARM=2
MEASURE=6
# What 1:1 can carry while training is backlogged: the link less the
# guard's train_share (10 %), in UDP payload bytes (1442 bytes on the wire
# per 1400).
CAP=$((10000000 / 8 * 90 / 100 * SIZE / (SIZE + 42)))

# slo_counters: "BYTES MET MISSED DOWNGRADES PROB SOJOURN_AVG_NS" of class
# 1:1 (the bands in $BANDS, as 1,2,3: added up, the largest PROB and
# SOJOURN_AVG) of aiclass on the router's egress, read from the kernel's class dump
# (what tc prints of it is tc_plugin.sh's to test).
slo_counters() {
	ns_exec "$RTR" python3 - "$RTR_OUT" "${BANDS:-1}" <<'EOF'
import os, socket, struct, sys
sys.path[:0] = [os.environ["TOP"] + "/selftests", os.environ["TOP"] + "/tc"]
from aiclass_msg import E
from nlfuzz import Rtnl, nla_iter, tcmsg, RTM_GETTCLASS, NLA_TYPE_MASK

ifindex = socket.if_nametoindex(sys.argv[1])
bands = [int(b, 16) for b in sys.argv[2].split(",")]
tot = [0] * 6
want = {E["TCA_AICLASS_CSTATS_" + k]: k for k in
        ("SLO_MET", "SLO_MISSED", "SLO_DOWNGRADES", "SLO_PROB",
         "SOJOURN_AVG64")}
for m in Rtnl().dump(RTM_GETTCLASS, tcmsg(ifindex, 0, 0)):
    _, idx, clid, _, _ = struct.unpack_from("=BxxxiIII", m)
    if idx != ifindex or clid >> 16 != 1 or clid & 0xffff not in bands:
        continue
    v = dict.fromkeys(want.values(), 0)
    nbytes = 0
    for t, d in nla_iter(m[20:])[0]:
        if t & NLA_TYPE_MASK != 7:		# TCA_STATS2
            continue
        for st, sd in nla_iter(d)[0]:
            st &= NLA_TYPE_MASK
            if st == 1:			# TCA_STATS_BASIC
                nbytes = struct.unpack_from("=Q", sd)[0]
            elif st == 4:		# TCA_STATS_APP
                for _, xd in nla_iter(sd)[0]:
                    for ct, cd in nla_iter(xd)[0]:
                        k = want.get(ct & NLA_TYPE_MASK)
                        if k:
                            v[k] = int.from_bytes(cd[:8], "little")
    row = [nbytes, v["SLO_MET"], v["SLO_MISSED"], v["SLO_DOWNGRADES"],
           v["SLO_PROB"], v["SOJOURN_AVG64"]]
    tot = [max(a, b) if i >= 4 else a + b
           for i, (a, b) in enumerate(zip(tot, row))]
print(*tot)
EOF
}

# slo_point PCT TOS: offer PCT % of CAP as responses with TOS for
# WARM + MEASURE s beside the bulk flows; sets PT_LOAD (offered payload
# bytes/s), PT_KEPT (bytes/s that stayed in 1:1), PT_MET, PT_MISSED,
# PT_DOWN, PT_PROB and PT_SOJ (ns) over the MEASURE s.
slo_point() {
	local rate=$((CAP * $1 / 100)) a b
	PT_LOAD=$rate
	ns_bg "$SND" python3 "$TOP/selftests/rpcload.py" "$RCV_IP" 9000 \
		-r "$rate" -s "$SIZE" -b "$BURST" -f 32 -t "$2" \
		-T $((WARM + MEASURE + 1)) >/dev/null
	sleep "$WARM"
	a=($(slo_counters))
	sleep "$MEASURE"
	b=($(slo_counters))
	PT_KEPT=$(((b[0] - a[0]) / MEASURE))
	PT_MET=$((b[1] - a[1]))
	PT_MISSED=$((b[2] - a[2]))
	PT_DOWN=$((b[3] - a[3]))
	PT_PROB=${b[4]}
	PT_SOJ=${b[5]}
	sleep 2		# the load ends, the band drains
}

# slo_setup SLO SECONDS [OPTION...]: aiclass with OPTIONs (handle 1: at
# $DUT_PARENT, with its own shaper at RATE unless SHAPER is set empty) and
# the SLO on 1:1 (off: none), DSCP 46 to 1:1, with 4 bulk TCP flows
# filling 1:11 for SECONDS.
SHAPER="rate $RATE"
slo_setup() {
	# shellcheck disable=SC2086
	dut_qdisc aiclass $SHAPER "${@:3}" dscpmap 46:1 ||
		fail "aiclass was refused"
	dut_tc class change dev "$DUT_DEV" classid 1:1 aiclass slo "$1" ||
		fail "slo $1 on 1:1 was refused"
	iperf_client 5201 4 "$2"
	BULK_PID=$BG_PID
	sleep 4
}

# bulk_stop: end slo_setup's bulk flows, so the next case's can connect.
bulk_stop() {
	kill "$BULK_PID" 2>/dev/null
	wait "$BULK_PID" 2>/dev/null || true	# killed: 143
	sleep 1
}

iperf_client() {
	ns_bg "$SND" iperf3 -c "$RCV_IP" -p "$1" -P "$2" -t "$3" >/dev/null
}

# ---------------------------------------------------------------- cases ----

# Up to what the band can carry, the SLO holds by itself and nothing is
# downgraded; past it, the band keeps its promise for what stays and still
# carries most of what it carried at 90 %, while the same overload without
# an SLO queues far past it.  Measured (6.1, deterministic): 30-90 % all
# within the SLO and no downgrade; 120 %: 993/1000 within, 1:1 kept 0.94x
# its 90 % bytes; 150 %: 982/1000, 0.88x; 200 %: 993/1000, 0.90x; without
# the SLO at 150 %, a 60 ms sojourn.
test_slo_ramp() {
	local pct out=() met=() kept=() down=() n i lo_met lo_kept
	slo_setup "${SLO_US}us" 80
	for pct in 30 60 90 120 150 200; do
		slo_point "$pct" 0xb8
		n=$((PT_MET + PT_MISSED))
		[ "$n" -gt 0 ] || fail "no packet left 1:1 at ${pct} %"
		met+=($((PT_MET * 1000 / n)))
		kept+=("$PT_KEPT")
		down+=("$PT_DOWN")
		out+=("${pct}%: ${PT_KEPT} B/s kept of ${PT_LOAD}, met ${met[-1]}/1000 of $n, ${PT_DOWN} downgrades, p=${PT_PROB} ppm")
		echo "${out[-1]}"
	done
	for i in 0 1 2; do
		[ "${met[i]}" -ge 990 ] && [ "${down[i]}" -eq 0 ] ||
			fail "below capacity: ${out[i]}"
	done
	# Past capacity: at least 97 % within (96 % at twice the capacity),
	# and 80 % (70 %) of what 1:1 carried at 90 % still carried there.
	for i in 3 4 5; do
		lo_met=970 lo_kept=80
		[ "$i" -lt 5 ] || lo_met=960 lo_kept=70
		[ "${met[i]}" -ge $lo_met ] && [ "${down[i]}" -gt 0 ] &&
			[ "${kept[i]}" -ge $((kept[2] * lo_kept / 100)) ] ||
			fail "overloaded: ${out[i]}"
	done

	bulk_stop
	slo_setup off 30
	slo_point 150 0xb8
	echo "without an SLO at 150 %: sojourn_avg ${PT_SOJ} ns, ${PT_KEPT} B/s kept"
	[ "$PT_SOJ" -gt $((SLO_US * 1000)) ] ||
		fail "without an SLO, 1:1's sojourn ${PT_SOJ} ns stayed under ${SLO_US} us at 150 %"
	bulk_stop
}

# The auto route's responses (no DSCP: each 4-datagram burst starts in
# 1:1) at 150 %: the same promise for what stays in 1:1, where the auto
# route's demotions and the SLO's downgrades both act.
test_slo_auto() {
	slo_setup "${SLO_US}us" 20
	# Measured 987/1000 (6.1, deterministic), as the dscpmap's load at
	# 150 % (982).
	slo_overload auto 0
	bulk_stop
}

# slo_overload WHAT [TOS [PERMILLE]]: the load at 150 %, as set up (TOS
# 0xb8, DSCP 46: the dscpmap's), must keep >= PERMILLE (970) of what stays
# in 1:1 within the SLO, with downgrades.
slo_overload() {
	slo_point 150 "${2:-0xb8}"
	local n=$((PT_MET + PT_MISSED))
	echo "$1 at 150 %: ${PT_KEPT} B/s kept of ${PT_LOAD}, met ${PT_MET} of $n, ${PT_DOWN} downgrades"
	[ "$n" -gt 0 ] || fail "$1: no packet left 1:1"
	[ $((PT_MET * 1000 / n)) -ge "${3:-970}" ] && [ "$PT_DOWN" -gt 0 ] ||
		fail "$1: only ${PT_MET} of $n packets within the SLO"
}

# As a child of hfsc (which shapes at RATE) and of qfq (under an htb that
# shapes), aiclass has no shaper of its own, and its parent dequeues it
# packet by packet: the SLO holds as at the root.
test_slo_parents() {
	local dev=$DUT_DEV
	dut_tc qdisc del dev "$dev" root 2>/dev/null || true
	dut_tc qdisc add dev "$dev" root handle 100: hfsc default 1
	dut_tc class add dev "$dev" parent 100: classid 100:1 hfsc \
		sc rate "$RATE" ul rate "$RATE"
	DUT_PARENT="parent 100:1" SHAPER=
	slo_setup "${SLO_US}us" 20
	slo_overload hfsc
	bulk_stop

	dut_tc qdisc del dev "$dev" root
	dut_tc qdisc add dev "$dev" root handle 100: htb default 1
	dut_tc class add dev "$dev" parent 100: classid 100:1 htb \
		rate "$RATE" ceil "$RATE"
	dut_tc qdisc add dev "$dev" parent 100:1 handle 2: qfq
	dut_tc class add dev "$dev" parent 2: classid 2:1 qfq weight 1
	dut_tc filter add dev "$dev" parent 2: matchall classid 2:1
	DUT_PARENT="parent 2:1"
	slo_setup "${SLO_US}us" 20
	slo_overload qfq
	bulk_stop
	dut_tc qdisc del dev "$dev" root
}

# A flow table of 16 slots for 4 bulk flows and 32 response flows: the
# placed responses whose set is full queue in 1:1's spill queue, and the
# SLO must hold for them as for the flows with a slot of their own.
# The spill queue holds less tightly (docs/design.md says why): measured
# 96.2-99.2 % within the SLO over eight runs (6.1 and 6.12, deterministic,
# after the ramp), hence 95 % here.  Without the spill queue in the SLO,
# 37 % were.
test_slo_full_table() {
	slo_setup "${SLO_US}us" 20 flows 16
	slo_overload "flows 16" 0xb8 950
	local shared
	shared=$(TCNS=$RTR DEV=$DUT_DEV aiclass_xstat flows_shared)
	echo "flows_shared $shared"
	[ "$shared" -gt 0 ] ||
		fail "no packet shared a slot: the table was not full"
	bulk_stop
}

ktap_header
require_cmd iperf3 python3
aiclass_load
ktap_plan 4
dumbbell_setup -d 5ms
ns_exec "$SND" sysctl -qw net.ipv4.tcp_ecn=0 net.ipv4.tcp_congestion_control=cubic
ns_bg "$RCV" iperf3 -s -p 5201 >/dev/null
wait_listen "$RCV" 5201
run_case "an SLO band keeps its promise from 30 % to 200 % of its capacity" test_slo_ramp
run_case "an SLO band keeps its promise for auto-classified responses" test_slo_auto
run_case "an SLO band keeps its promise under hfsc and qfq parents" test_slo_parents
run_case "an SLO band keeps its promise with a full flow table" test_slo_full_table
ktap_finish
