# SPDX-License-Identifier: GPL-2.0
# selftests/dummy.sh - the setting of the selftests that drive aiclass on a
# dummy device, where what the qdisc dequeues is "sent": the device, a
# fresh aiclass on it, udpsend.py towards it, and readings of its class
# counters.  Sourced after lib.sh (qdisc.sh, core.sh).

DEV=aic0
DST=198.18.0.2
SEND="python3 $TOP/selftests/udpsend.py"

# ------------------------------------------------------------- helpers ----

dev_setup() {
	dummy_dev "$DEV" 198.18.0.1/24
}

# aq OPTIONS...: a fresh aiclass, handle 1:, root of $DEV.
aq() {
	tc qdisc del dev "$DEV" root 2>/dev/null || true
	tc qdisc add dev "$DEV" root handle 1: aiclass "$@"
}

# class_stat CLASS bytes|pkts|dropped: from `tc -s class show`.
class_stat() {
	tc -s class show dev "$DEV" | awk -v c="$1" -v f="$2" '
		$1 == "class" { cur = $3 }
		cur == c && $1 == "Sent" {
			if (f == "bytes") print $2
			if (f == "pkts") print $4
			if (f == "dropped") { sub(",", "", $7); print $7 }
			exit
		}'
}

# send ARGS...: udpsend.py to $DST through $DEV.
send() {
	$SEND "$DST" "$@"
}

# wait_drained: until the qdisc holds no packet (10 s at most).
wait_drained() {
	local i
	for ((i = 0; i < 100; i++)); do
		tc -s qdisc show dev "$DEV" | has "backlog 0b 0p" && return 0
		sleep 0.1
	done
	fail "qdisc did not drain: $(tc -s qdisc show dev "$DEV")"
}

# class_bytes: "CLASS BYTES" per line, all classes from one dump.
class_bytes() {
	tc -s class show dev "$DEV" |
		awk '$1 == "class" { c = $3 } $1 == "Sent" { print c, $2 }'
}

# window SECONDS CLASS...: bytes each class sent over SECONDS, in W_<minor>
# variables (W_11 for 1:11), their sum in W_TOTAL, the time it really took
# (two snapshots, each from one dump) in W_SECS.
window() {
	local secs=$1 t0 t1 s0 s1 c
	shift
	t0=$(date +%s.%N)
	s0=$(class_bytes)
	sleep "$secs"
	s1=$(class_bytes)
	t1=$(date +%s.%N)
	W_SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	W_TOTAL=0
	for c in "$@"; do
		declare -g "W_$c=$(( $(echo "$s1" | awk -v c="1:$c" '$1 == c { print $2 }') -
				    $(echo "$s0" | awk -v c="1:$c" '$1 == c { print $2 }') ))"
		W_TOTAL=$((W_TOTAL + $(eval echo "\$W_$c")))
	done
}

pct() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? 100 * a / b : 0 }'
}
