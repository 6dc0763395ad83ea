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
