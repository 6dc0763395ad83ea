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

# --------------------------------------------- pktgen into a dummy device ----
# The cost phase of `make bench` and its instruction profile
# (tools/bench/insn-profile): pktgen builds 64-byte UDP packets with FLOWS
# source ports in turn and hands them to dev_queue_xmit (xmit_mode
# queue_xmit) on the dummy device pg0.

# NAME|QDISC ARGS; aiclass_codel: CoDel at its smallest target and
# interval, so that any packet that waits at all is CoDel's business.
# shellcheck disable=SC2034  # used by the scripts that source this file
cost_contenders=(
	"pfifo|pfifo"
	"fq_codel|fq_codel"
	"ets|ets quanta 1514 3028 6056"
	"cake|cake besteffort"
	"fq|fq"
	"aiclass|aiclass"
	"aiclass_codel|aiclass target 10us interval 100us"
)

# pg_setup: pktgen loaded and the dummy device pg0 up (deleted at exit).
pg_setup() {
	modprobe pktgen || die "no pktgen module"
	modprobe dummy || die "no dummy module"
	ip link del pg0 2>/dev/null || true
	ip link add pg0 type dummy
	ip link set pg0 txqueuelen 1000 up
	ip addr add 10.200.0.1/24 dev pg0
	defer ip link del pg0
}

pgset() {
	echo "$2" >"/proc/net/pktgen/$1"
}

pgpid=
# pg_ns: CPU time so far of pktgen's thread (kpktgend_0), ns: the packet's
# build, the qdisc's enqueue and dequeue and the dummy's xmit all run in it.
pg_ns() {
	[ -n "$pgpid" ] || pgpid=$(pgrep -x kpktgend_0 | head -n 1)
	cut -d' ' -f1 "/proc/$pgpid/schedstat"
}

# pktgen_run FLOWS: "PPS NS_PER_PACKET" of one run of $PG_COUNT packets.
pktgen_run() {
	local flows=$1 c0 c1 pps
	pgset kpktgend_0 rem_device_all
	pgset kpktgend_0 "add_device pg0"
	pgset pg0 "count $PG_COUNT"
	pgset pg0 "pkt_size 64"
	pgset pg0 "clone_skb 0"
	pgset pg0 "burst 1"
	pgset pg0 "delay 0"
	pgset pg0 "xmit_mode queue_xmit"
	pgset pg0 "dst 10.200.0.2"
	pgset pg0 "dst_mac 02:00:00:00:00:02"
	pgset pg0 "udp_dst_min 9"
	pgset pg0 "udp_dst_max 9"
	pgset pg0 "udp_src_min 10000"
	pgset pg0 "udp_src_max $((10000 + flows - 1))"
	c0=$(pg_ns)
	pgset pgctrl start
	c1=$(pg_ns)
	pps=$(sed -n 's/^ *\([0-9]*\)pps.*/\1/p' /proc/net/pktgen/pg0)
	echo "${pps:-0} $(((c1 - c0) / PG_COUNT))"
}

# install_pg fair|bypass ARGS...: the qdisc ARGS on pg0, as the child of a
# prio band (fair: nobody can bypass) or as root.
install_pg() {
	local how=$1
	shift
	tc qdisc del dev pg0 root 2>/dev/null || true
	if [ "$how" = fair ]; then
		tc qdisc add dev pg0 root handle 1: prio &&
		tc qdisc add dev pg0 parent 1:2 handle 10: "$@"
	else
		tc qdisc add dev pg0 root handle 10: "$@"
	fi
}
