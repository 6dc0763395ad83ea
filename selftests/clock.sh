#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What only a guest whose clock skips idle time can test in seconds: flows
# quiet for longer than a u32 of codel time (ns >> 10) holds, 2^32 x 1.024
# us = 73 min 18 s, within forget's range of up to an hour.  A slot time
# kept in 32 bits would wrap, and an elephant quiet for 75 minutes would
# look quiet for two and be remembered.
#
# Deterministic guest time only (selftests/run's DETERMINISTIC: QEMU
# -icount with sleep=off jumps over the guest's idle time, so its 75
# minutes of sleep pass in seconds of wall time); under plain TCG the
# cases would take that long and are skipped.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dummy.sh"

# Guest seconds past the wrap of a u32 of codel time.
WRAP_S=$(((1 << 32) * 1024 / 1000000000 + 1))

# elephant PORT: a burst of 400 packets of 1000 bytes from source port
# PORT, which passes elephant (256 KB) while a 4 Mbit shaper holds it, as
# in qdisc.sh's auto-route case; checks that it reached training.
elephant() {
	local before
	before=$(class_stat 1:11 pkts)
	send 7000 -n 400 -s 1000 -S "$1"
	wait_drained
	[ $(($(class_stat 1:11 pkts) - before)) -ge 148 ] ||
		fail "the burst from port $1 did not reach training"
}

# burst_to PORT CLASS: 10 packets from PORT all leave through CLASS.
burst_to() {
	local c
	c=$(class_stat "$2" pkts)
	send 7000 -n 10 -s 1000 -S "$1"
	wait_drained
	check_eq "$(($(class_stat "$2" pkts) - c))" 10 "packets from port $1 through $2"
}

# Two elephants; the first comes back after 3000 s, within forget (3600
# s): remembered, in training.  The second after 3000 + 1500 s, past
# forget and past the wrap: forgotten, its burst in 1:1.  With 32-bit slot
# times it would read as quiet for about 100 s, and be remembered.
test_forget_past_wrap() {
	dev_setup
	aq idle 1s forget 3600s rate 4mbit target 1s interval 10s
	elephant 7701
	elephant 7702
	sleep 3000
	burst_to 7701 1:11
	check_eq "$(aiclass_xstat remembered)" 1 "elephants remembered after 3000 s"
	sleep $((WRAP_S + 100 - 3000))
	burst_to 7702 1:1
	check_eq "$(aiclass_xstat remembered)" 1 "elephants remembered past the wrap"
	[ "$(aiclass_xstat idle_resets)" -ge 1 ] || fail "idle_resets not counted"
}

ktap_header
require_cmd python3
[ "${AICLASS_VM_DETERMINISTIC:-0}" = 1 ] ||
	ktap_skip_all "needs deterministic guest time, which skips idle time"
aiclass_load
ktap_plan 1
run_case "an elephant quiet past the 32-bit wrap of codel time is forgotten" test_forget_past_wrap
ktap_finish
