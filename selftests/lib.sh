# SPDX-License-Identifier: GPL-2.0
# selftests/lib.sh - KTAP output and network topology helpers for the
# aiclass selftests.  Sourced by every selftests/*.sh; runs inside the test
# bed guest (tools/vm/run), as root, with the checkout as working directory.
#
# A test file:
#
#	#!/bin/bash
#	. "$(dirname "$0")/lib.sh"
#
#	test_something() {
#		aiclass_load			# skips this case if not built
#		ns_exec "$RTR" tc qdisc ... || fail "tc refused ..."
#		within_pct "$measured" "$expected" 10 "rate of class 1:11"
#	}
#
#	ktap_plan 1
#	dumbbell_setup -r 50mbit		# topology once per file
#	run_case "the thing works" test_something
#	ktap_finish
#
# A case function runs in a subshell under `set -eE -o pipefail`, with its
# output turned into KTAP diagnostics ("# ..."): it passes by returning 0,
# fails through `fail MSG` or any command that fails unchecked (the line is
# reported), and skips through `skip REASON`.  Outside a case, `skip REASON`
# skips the whole file (KTAP "1..0 # SKIP", exit 4) and `ktap_bail MSG`
# aborts it.  Namespaces, background processes (ns_bg) and anything given
# to `defer` are cleaned up when the case, or the file, that made them ends.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export TOP

# The tc plugin, once built, teaches the distribution's tc our options.
# (TC_LIB_DIR also hides Debian's netem distribution tables: netem's
# "distribution" keyword needs TC_LIB_DIR=/usr/lib/x86_64-linux-gnu/tc.)
if [ -f "$TOP/tc/q_aiclass.so" ]; then
	export TC_LIB_DIR="$TOP/tc"
fi
if [ -x "$TOP/tools/aiclassctl/aiclassctl" ]; then
	PATH="$TOP/tools/aiclassctl:$PATH"
fi

# ---------------------------------------------------------------- KTAP ----

KTAP_PLANNED=0
KTAP_NUM=0
KTAP_PASS=0
KTAP_FAIL=0
KTAP_SKIP=0
KTAP_IN_CASE=

ktap_header() {
	[ "${KTAP_HEADER_DONE:-}" ] && return
	KTAP_HEADER_DONE=1
	echo "TAP version 13"
}

# ktap_plan N: announce N test cases.
ktap_plan() {
	ktap_header
	KTAP_PLANNED=$1
	echo "1..$1"
}

ktap_diag() {
	sed 's/^/# /'
}

ktap_pass() {
	KTAP_NUM=$((KTAP_NUM + 1))
	KTAP_PASS=$((KTAP_PASS + 1))
	echo "ok $KTAP_NUM $1"
}

ktap_fail() {
	KTAP_NUM=$((KTAP_NUM + 1))
	KTAP_FAIL=$((KTAP_FAIL + 1))
	echo "not ok $KTAP_NUM $1"
}

# ktap_skip NAME REASON
ktap_skip() {
	KTAP_NUM=$((KTAP_NUM + 1))
	KTAP_SKIP=$((KTAP_SKIP + 1))
	echo "ok $KTAP_NUM $1 # SKIP ${2:-}"
}

# ktap_skip_all REASON: the (rest of the) file does not apply here: before
# the plan, "1..0 # SKIP" and exit 4; after it, skip the remaining cases.
ktap_skip_all() {
	ktap_header
	if [ "$KTAP_PLANNED" -eq 0 ]; then
		echo "1..0 # SKIP $1"
		exit $KSFT_SKIP
	fi
	while [ "$KTAP_NUM" -lt "$KTAP_PLANNED" ]; do
		ktap_skip "not run" "$1"
	done
	ktap_finish
}

# ktap_bail MSG: the file cannot go on (e.g. topology setup failed).
ktap_bail() {
	echo "Bail out! $*"
	exit $KSFT_FAIL
}

# ktap_finish: totals as a diagnostic; exit 1 if any case failed or the plan
# was not met, 4 if every case skipped, else 0.
ktap_finish() {
	echo "# Totals: pass:$KTAP_PASS fail:$KTAP_FAIL skip:$KTAP_SKIP"
	if [ "$KTAP_NUM" -ne "$KTAP_PLANNED" ]; then
		echo "# planned $KTAP_PLANNED cases, ran $KTAP_NUM"
		exit $KSFT_FAIL
	fi
	[ "$KTAP_FAIL" -eq 0 ] || exit $KSFT_FAIL
	[ "$KTAP_PASS" -gt 0 ] || [ "$KTAP_SKIP" -eq 0 ] || exit $KSFT_SKIP
	exit $KSFT_PASS
}

# run_case NAME FUNC [ARG...]: run one case in a subshell and report it.
# $AICLASS_CASES, an extended regular expression, runs only the cases whose
# FILE:FUNC it matches (core:test_peek_parents), the others reported
# skipped: a developer's filter, and CI's for the debug-kernel lane.
run_case() {
	local name=$1 out rc reason start=$SECONDS
	shift
	if [ -n "${AICLASS_CASES:-}" ] &&
		! [[ $(basename "$0" .sh):$1 =~ $AICLASS_CASES ]]; then
		ktap_skip "$name" "not in AICLASS_CASES"
		return 0
	fi
	out=$(mktemp)
	(
		KTAP_IN_CASE=1
		LIB_DEFERRED=()
		LIB_NETNS=()
		trap lib_cleanup EXIT
		trap lib_err ERR
		set -eE -o pipefail
		"$@"
	) >"$out" 2>&1
	rc=$?
	reason=$(sed -n 's/^SKIP: //p' "$out" | tail -n 1)
	grep -v '^SKIP: ' "$out" | ktap_diag
	rm -f "$out"
	# The case's share of the suite's time (guest seconds).
	[ "$rc" = "$KSFT_SKIP" ] || echo "# took $((SECONDS - start))s"
	case $rc in
	0) ktap_pass "$name" ;;
	"$KSFT_SKIP") ktap_skip "$name" "$reason" ;;
	*) ktap_fail "$name" ;;
	esac
}

# ERR trap inside a case: name the command that failed and where.
lib_err() {
	local rc=$? i where="${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]}"
	for ((i = 2; i < ${#FUNCNAME[@]}; i++)); do
		[ "${FUNCNAME[i]}" != run_case ] || break
		where+=" < ${BASH_SOURCE[i]##*/}:${BASH_LINENO[i - 1]}"
	done
	echo "FAIL: '$BASH_COMMAND' exited $rc at $where"
}

# fail MSG: end the current case as failed.
fail() {
	echo "FAIL: $*"
	exit $KSFT_FAIL
}

# skip REASON: skip the current case, or the whole file outside a case.
skip() {
	if [ -n "$KTAP_IN_CASE" ]; then
		echo "SKIP: $*"
		exit $KSFT_SKIP
	fi
	ktap_skip_all "$*"
}

# require_cmd CMD...: skip unless every command exists.
require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || skip "$c is not installed"
	done
}

# has GREP-ARGS...: grep whose input matches, reading all of it.  Not
# `cmd | grep -q`: grep -q exits at the first match, and under pipefail the
# pipeline then fails when cmd writes again (SIGPIPE), as a one-CPU guest
# lets it.
has() {
	grep "$@" >/dev/null
}

# check_eq GOT WANT WHAT
check_eq() {
	[ "$1" = "$2" ] || fail "$3: got '$1', want '$2'"
	echo "$3: $1"
}

# within_pct MEASURED EXPECTED PCT WHAT: |MEASURED/EXPECTED - 1| <= PCT%.
within_pct() {
	awk -v m="$1" -v e="$2" -v p="$3" -v w="$4" 'BEGIN {
		if (e == 0) { print w ": expected value is 0"; exit 1 }
		d = (m / e - 1) * 100; if (d < 0) d = -d
		printf "%s: %s, expected %s +-%s%% (off by %.1f%%)\n", w, m, e, p, d
		exit d <= p ? 0 : 1 }' || fail "$4 out of tolerance"
}

# ------------------------------------------------------------- cleanup ----

LIB_DEFERRED=()
LIB_NETNS=()

# defer CMD...: run CMD when the test file exits, newest first.
defer() {
	local q
	printf -v q ' %q' "$@"
	LIB_DEFERRED+=("$q")
}

lib_cleanup() {
	local i ns
	set +eE
	trap - ERR
	for ((i = ${#LIB_DEFERRED[@]} - 1; i >= 0; i--)); do
		eval "${LIB_DEFERRED[i]}" >/dev/null 2>&1
	done
	for ns in "${LIB_NETNS[@]}"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
}
trap lib_cleanup EXIT

# ------------------------------------------------------------ topology ----

# ns_create NAME...: fresh network namespaces with lo up; removed on exit.
ns_create() {
	local ns
	for ns in "$@"; do
		ip netns del "$ns" 2>/dev/null || true
		ip netns add "$ns" || return 1
		LIB_NETNS+=("$ns")
		ip -n "$ns" link set lo up || return 1
	done
}

# ns_exec NS CMD...: run CMD in namespace NS.
ns_exec() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

# ns_bg NS CMD...: start CMD in NS in the background; killed on exit.
# The pid is left in $BG_PID.
ns_bg() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@" &
	BG_PID=$!
	defer kill "$BG_PID"
}

# veth_pair NS1 IF1 NS2 IF2: a veth pair between two namespaces, both up.
veth_pair() {
	ip link add "$2" netns "$1" type veth peer name "$4" netns "$3" || return 1
	ip -n "$1" link set "$2" up && ip -n "$3" link set "$4" up
}

# dummy_dev NAME ADDR/PREFIX [MTU]: a fresh dummy device NAME, up, with the
# address and IPv6 off (no autoconfiguration packets: every packet its qdisc
# counts is the test's own); deleted when the case (or file) ends.
dummy_dev() {
	ip link del "$1" 2>/dev/null || true
	ip link add "$1" type dummy
	defer ip link del "$1"
	sysctl -qw "net.ipv6.conf.$1.disable_ipv6=1"
	ip link set "$1" ${3:+mtu "$3"} up
	ip addr add "$2" dev "$1"
}

# The dumbbell:
#
#   $SND eth0 ---- in0 $RTR out0 ---- eth0 $RCV
#   192.0.2.1    192.0.2.2  198.51.100.2   198.51.100.1
#   2001:db8:1::1  ...:1::2  2001:db8:2::2  2001:db8:2::1
#
# The qdisc under test sits on $RTR_OUT's egress (toward the receiver).
SND=aic-snd
RTR=aic-rtr
RCV=aic-rcv
SND_IF=eth0
RTR_IN=in0
RTR_OUT=out0
RCV_IF=eth0
SND_IP=192.0.2.1
RTR_IN_IP=192.0.2.2
RTR_OUT_IP=198.51.100.2
RCV_IP=198.51.100.1
SND_IP6=2001:db8:1::1
RCV_IP6=2001:db8:2::1
DUT_PARENT=root
DUT_DEV=$RTR_OUT

# dumbbell_setup [-r RATE] [-b BURST] [-d DELAY] [-o]
#   -r RATE   shape the bottleneck: HTB at RATE is root of $RTR_OUT and the
#             qdisc under test is its leaf (DUT_PARENT="parent 100:1");
#             without -r the qdisc under test is root of $RTR_OUT
#   -b BURST  the HTB class's burst and cburst (tc's default: one MTU)
#   -d DELAY  netem delay on the return path ($RCV's egress), e.g. 10ms
#   -o        turn GSO/TSO/GRO off on every link, so the qdisc sees MTU
#             packets rather than 64 KB aggregates
# Leaves pfifo as the qdisc under test; replace it with dut_qdisc.
dumbbell_setup() {
	local rate="" burst=() delay="" nooffload="" opt OPTIND=1 ns dev
	while getopts "r:b:d:o" opt; do
		case $opt in
		r) rate=$OPTARG ;;
		b) burst=(burst "$OPTARG" cburst "$OPTARG") ;;
		d) delay=$OPTARG ;;
		o) nooffload=1 ;;
		*) echo "dumbbell_setup: bad option" >&2; return 1 ;;
		esac
	done
	modprobe -q veth || true
	ns_create "$SND" "$RTR" "$RCV" || return 1
	veth_pair "$SND" "$SND_IF" "$RTR" "$RTR_IN" || return 1
	veth_pair "$RTR" "$RTR_OUT" "$RCV" "$RCV_IF" || return 1

	ip -n "$SND" addr add "$SND_IP/24" dev "$SND_IF"
	ip -n "$RTR" addr add "$RTR_IN_IP/24" dev "$RTR_IN"
	ip -n "$RTR" addr add "$RTR_OUT_IP/24" dev "$RTR_OUT"
	ip -n "$RCV" addr add "$RCV_IP/24" dev "$RCV_IF"
	ip -n "$SND" addr add "$SND_IP6/64" dev "$SND_IF" nodad
	ip -n "$RTR" addr add 2001:db8:1::2/64 dev "$RTR_IN" nodad
	ip -n "$RTR" addr add 2001:db8:2::2/64 dev "$RTR_OUT" nodad
	ip -n "$RCV" addr add "$RCV_IP6/64" dev "$RCV_IF" nodad
	ip -n "$SND" route add default via "$RTR_IN_IP"
	ip -n "$RCV" route add default via "$RTR_OUT_IP"
	ip -n "$SND" -6 route add default via 2001:db8:1::2
	ip -n "$RCV" -6 route add default via 2001:db8:2::2
	ns_exec "$RTR" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 ||
		return 1

	if [ -n "$nooffload" ]; then
		for ns in "$SND:$SND_IF" "$RTR:$RTR_IN" "$RTR:$RTR_OUT" "$RCV:$RCV_IF"; do
			dev=${ns#*:}
			ns_exec "${ns%%:*}" ethtool -K "$dev" gso off tso off gro off \
				>/dev/null 2>&1 || true
		done
	fi
	if [ -n "$rate" ]; then
		ns_exec "$RTR" tc qdisc add dev "$RTR_OUT" root handle 100: htb default 1 &&
		ns_exec "$RTR" tc class add dev "$RTR_OUT" parent 100: classid 100:1 \
			htb rate "$rate" ceil "$rate" "${burst[@]}" || return 1
		DUT_PARENT="parent 100:1"
	else
		DUT_PARENT=root
	fi
	dut_qdisc pfifo || return 1
	if [ -n "$delay" ]; then
		ns_exec "$RCV" tc qdisc add dev "$RCV_IF" root netem delay "$delay" ||
			return 1
	fi
}

# dut_qdisc KIND [OPTIONS...]: a fresh KIND, handle 1:, where the qdisc
# under test goes in the dumbbell, in place of what was there.  (`tc qdisc
# change` of the one in place: dut_tc qdisc change dev $DUT_DEV $DUT_PARENT
# handle 1: KIND OPTIONS...)
dut_qdisc() {
	# shellcheck disable=SC2086
	ns_exec "$RTR" tc qdisc del dev "$RTR_OUT" $DUT_PARENT 2>/dev/null || true
	# shellcheck disable=SC2086
	ns_exec "$RTR" tc qdisc add dev "$RTR_OUT" $DUT_PARENT handle 1: "$@"
}

# dut_tc ARGS...: tc in the router namespace, e.g. dut_tc -s class show dev $DUT_DEV
dut_tc() {
	ns_exec "$RTR" tc "$@"
}

# ------------------------------------------------------------- module -----

AICLASS_KO=${AICLASS_KO:-$TOP/sch_aiclass.ko}

aiclass_loaded() {
	[ -d /sys/module/sch_aiclass ]
}

# aiclass_load: insmod $TOP/sch_aiclass.ko unless loaded; skip (the case,
# or the whole file when called outside a case) when it is not built.
aiclass_load() {
	aiclass_loaded && return 0
	[ -f "$AICLASS_KO" ] || skip "sch_aiclass.ko is not built (run make)"
	insmod "$AICLASS_KO" || fail "insmod $AICLASS_KO failed"
}

# aiclass_unload: rmmod sch_aiclass if loaded; fails when rmmod does.
aiclass_unload() {
	aiclass_loaded || return 0
	rmmod sch_aiclass || fail "rmmod sch_aiclass failed"
}

# aiclass_xstat KEY [PARENT]: a value of the first aiclass qdisc of $DEV (the
# one at PARENT, if given) from `tc -s -j qdisc show`, the key as the tc
# plugin prints it, found at any depth; 0 when that qdisc has no KEY,
# nothing when there is no aiclass qdisc.  $TCNS: the namespace $DEV lives
# in, if not this one.
aiclass_xstat() {
	${TCNS:+ip netns exec "$TCNS"} tc -s -j qdisc show dev "$DEV" ${2:+parent "$2"} | python3 -c '
import json, os, sys
sys.path.insert(0, os.environ["TOP"] + "/selftests")
from tcjson import find
for q in json.load(sys.stdin):
    if q.get("kind") == "aiclass":
        v = find(q, sys.argv[1])
        print(0 if v is None else v)
        break' "$1"
}

# pinhash_filter: build selftests/pinhash.bpf.c and attach it as a filter
# of the qdisc under test (1: on $DUT_DEV), so that the packets of
# rawflow.py carry the flow hash and the class their payload names; skips
# the case without clang.
pinhash_filter() {
	local obj
	require_cmd clang
	obj=$(mktemp --suffix .o)
	defer rm -f "$obj"
	clang -O2 -target bpf -I"/usr/include/$(gcc -print-multiarch)" \
		-c "$TOP/selftests/pinhash.bpf.c" -o "$obj"
	dut_tc filter add dev "$DUT_DEV" parent 1: bpf obj "$obj" \
		sec classifier da
}

# ------------------------------------------------------------- traffic ----

# wait_listen NS PORT [tcp|udp]: wait up to 10 s for a listener on PORT.
wait_listen() {
	local ns=$1 port=$2 proto=${3:-tcp} i flag=-ltn
	[ "$proto" = udp ] && flag=-lun
	for ((i = 0; i < 100; i++)); do
		ns_exec "$ns" ss -H $flag "sport = :$port" | has . && return 0
		sleep 0.1
	done
	echo "nothing listens on $proto port $port in $ns"
	return 1
}

# json_get FILE EXPR: print a value from a JSON file, EXPR in Python over d,
# e.g. json_get out.json 'd["end"]["sum_received"]["bits_per_second"]'.
json_get() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# iperf3_mbit FILE: receiver goodput in Mbit/s from `iperf3 -J` output
# (TCP: sum_received; UDP: sum).
iperf3_mbit() {
	python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))["end"]
s = e.get("sum_received") or e["sum"]
print("%.2f" % (s["bits_per_second"] / 1e6))' "$1"
}
