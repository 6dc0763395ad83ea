# SPDX-License-Identifier: GPL-2.0
# tools/bench/lib.sh - the traffic pieces `make demo` (tools/demo.sh) and
# `make bench` (tools/bench/bench.sh) share.  Sourced after
# selftests/lib.sh (namespaces, the dumbbell, ns_bg, wait_listen), inside
# the test bed.  Messages are prefixed with $TOOL.

TOOL=${TOOL:-aiclass}

die() {
	echo "$TOOL: $*" >&2
	exit 1
}

# need_cmds CMD...: every command is installed, or die naming `make deps`.
need_cmds() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || die "$c is not installed (make deps)"
	done
}

# need_aiclass: sch_aiclass.ko is built and loaded, or die.
need_aiclass() {
	[ -f "$AICLASS_KO" ] ||
		die "sch_aiclass.ko is not built, nothing to compare (make all)"
	aiclass_loaded || insmod "$AICLASS_KO" ||
		die "insmod $AICLASS_KO failed: aiclass cannot be measured"
}

# start_server NS PORT tcp|udp CMD...: CMD in the background in NS (killed
# on exit), then wait until something listens on PORT, or die.
start_server() {
	local ns=$1 port=$2 proto=$3
	shift 3
	ns_bg "$ns" "$@" >/dev/null 2>&1
	wait_listen "$ns" "$port" "$proto" >/dev/null || die "$1 did not start on $proto port $port"
}

# udp_elephant NS DST PORT MBIT SECS OUT [IPERF3 ARG...]: an iperf3 UDP flow
# of MBIT Mbit/s, 1400-byte datagrams, for SECS seconds; `iperf3 -J` output
# in OUT.  Port 4791 is RoCEv2's (the iperf3 server must listen there).
udp_elephant() {
	local ns=$1 dst=$2 port=$3 mbit=$4 secs=$5 out=$6
	shift 6
	ns_exec "$ns" iperf3 -c "$dst" -p "$port" -u -b "${mbit}M" -l 1400 -t "$secs" \
		-J "$@" >"$out"
}

# iperf3_udp_goodput FILE: Mbit/s that arrived, from `iperf3 -u -J` client
# output (the sender's rate less the loss the server reported).
iperf3_udp_goodput() {
	python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["end"]["sum"]
print("%.2f" % (s["bits_per_second"] * (1 - s.get("lost_percent", 0) / 100) / 1e6))' "$1"
}

# tcp_plain NS...: TCP as most bulk senders run it: cubic, no ECN.
tcp_plain() {
	local ns
	for ns in "$@"; do
		ns_exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control=cubic \
			net.ipv4.tcp_ecn=0 >/dev/null
	done
}

# sampler SECS DIR DPORT: about once a second for SECS seconds, the smoothed RTT
# of every established TCP connection to DPORT as the sender ($SND) sees it
# (`ss -tin`: "rtt:SRTT/RTTVAR", ms), one "TIME MS" line per connection in
# DIR/rtt.txt, and the qdisc's classes (`tc -s class show`: tc 6.1 has no
# JSON for classes) in DIR/class.samples, each sample after a "@@ TIME"
# line.  Run it in the background.
sampler() {
	local end=$(($(date +%s) + $1)) dir=$2 dport=$3 t
	: >"$dir/rtt.txt"
	: >"$dir/class.samples"
	while [ "$(date +%s)" -lt "$end" ]; do
		t=$(date +%s.%N)
		ns_exec "$SND" ss -tinH state established "( dport = :$dport )" |
			awk -v t="$t" '{ for (i = 1; i <= NF; i++)
				if ($i ~ /^rtt:/) { split(substr($i, 5), r, "/"); print t, r[1] } }' \
			>>"$dir/rtt.txt"
		{ echo "@@ $t"; dut_tc -s class show dev "$DUT_DEV" 2>/dev/null; } \
			>>"$dir/class.samples"
		sleep 1
	done
}

# rtt_summary FILE: "median p90" of the RTT samples of sampler, ms.
rtt_summary() {
	sort -n -k2 "$1" | awk '{ v[NR] = $2 }
		END { if (!NR) { print "n/a n/a"; exit }
		      m = v[int((NR + 1) / 2)]; p = v[int(NR * 0.9 + 0.999)]
		      printf "%.1f %.1f\n", m, p }'
}
