#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The README's recipes for steering traffic with stock tools, run as a user
# types them, each checked by where its packets landed: an application's
# SO_PRIORITY with priomap, a flower filter on DSCP, an nftables rule that
# sets the priority of one service's cgroup, the built-in dscpmap, and
# aiclassctl's roce and diffserv profiles.
. "$(dirname "$0")/lib.sh"

DEV=aicr0
DST=198.18.5.2
SEND="python3 $TOP/selftests/udpsend.py"

fresh() {
	dummy_dev "$DEV" 198.18.5.1/24
	tc qdisc add dev "$DEV" root handle 1: aiclass "$@"
}

class_pkts() {
	tc -s class show dev "$DEV" | awk -v c="$1" '
		$1 == "class" { cur = $3 }
		cur == c && $1 == "Sent" { print $4; exit }'
}

test_priomap_so_priority() {
	fresh
	# README: send priority 6 to 1:1 (here: to 1:12, which auto would
	# never pick for ten small packets).
	tc qdisc change dev "$DEV" handle 1: aiclass \
		priomap auto auto auto auto auto auto 1:12
	$SEND "$DST" 7000 -n 10 -p 6
	check_eq "$(class_pkts 1:12)" 10 "priority 6 packets in 1:12"
	check_eq "$(DEV=$DEV aiclass_xstat cls_priomap)" 10 "classified by priomap"
}

test_flower_dscp() {
	fresh
	tc filter add dev "$DEV" parent 1: protocol ip flower ip_tos 0x88/0xfc \
		classid 1:13
	$SEND "$DST" 7000 -n 7 -t 0x88
	$SEND "$DST" 7000 -n 3 -t 0x00 -S 7101
	check_eq "$(class_pkts 1:13)" 7 "AF41 packets in 1:13"
	check_eq "$(DEV=$DEV aiclass_xstat cls_filter)" 7 "classified by the filter"
}

test_nft_cgroup() {
	local cg=/sys/fs/cgroup svc
	require_cmd nft
	if ! grep -q cgroup2 /proc/mounts; then
		mount -t cgroup2 none "$cg" || skip "cannot mount cgroup2"
	fi
	cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	svc=$cg/system.slice/inference.service
	mkdir -p "$svc"
	defer rmdir "$svc" "$cg/system.slice"
	fresh
	nft add table inet aiclass
	defer nft delete table inet aiclass
	nft add chain inet aiclass out '{ type filter hook output priority 0; }'
	nft add rule inet aiclass out socket cgroupv2 level 2 \
		'"system.slice/inference.service"' meta priority set 1:12
	sh -c "echo \$\$ > $svc/cgroup.procs && exec $SEND $DST 7000 -n 9"
	$SEND "$DST" 7000 -n 4 -S 7102
	check_eq "$(class_pkts 1:12)" 9 "the service's packets in 1:12"
	check_eq "$(DEV=$DEV aiclass_xstat cls_priority)" 9 \
		"classified by the priority nftables set"
}

test_dscpmap() {
	fresh dscpmap 26:12,48:2
	$SEND "$DST" 7000 -n 6 -t 0x68			# DSCP 26
	$SEND "$DST" 7000 -n 5 -t 0xc0 -S 7103		# DSCP 48
	$SEND "$DST" 7000 -n 4 -t 0x00 -S 7104		# auto
	check_eq "$(class_pkts 1:12) $(class_pkts 1:2)" "6 5" \
		"DSCP 26 in 1:12, DSCP 48 in 1:2"
	check_eq "$(DEV=$DEV aiclass_xstat cls_dscpmap)" 11 "classified by dscpmap"
	check_eq "$(DEV=$DEV aiclass_xstat cls_auto)" 4 "left to auto"
}

# RoCE practice: data marked DSCP 26 to training, CNPs marked DSCP 48 to
# 1:1 -- also on the RoCE port, where dscpmap comes first.
test_profile_roce() {
	fresh
	aiclassctl profile roce dev "$DEV"
	$SEND "$DST" 4791 -n 8 -s 1000 -t 0x68 -b 0x0a -S 7105	# data
	$SEND "$DST" 4791 -n 3 -t 0xc0 -b 0x81 -S 7106	# CNP
	check_eq "$(class_pkts 1:11) $(class_pkts 1:1)" "8 3" \
		"DSCP 26 data in 1:11, DSCP 48 CNPs in 1:1"
	check_eq "$(DEV=$DEV aiclass_xstat cls_dscpmap)" 11 "classified by dscpmap"
}

test_profile_diffserv() {
	fresh
	aiclassctl profile diffserv dev "$DEV"
	$SEND "$DST" 7000 -n 5 -t 0xb8			# EF
	$SEND "$DST" 7000 -n 4 -t 0x20 -S 7107		# CS1
	check_eq "$(class_pkts 1:1) $(class_pkts 1:11)" "5 4" \
		"EF in 1:1, CS1 (bulk) in 1:11"
}

ktap_header
aiclass_load
ktap_plan 6
run_case "priomap sends an application's SO_PRIORITY to a class" test_priomap_so_priority
run_case "a flower filter on DSCP" test_flower_dscp
run_case "nftables sets one service's priority by its cgroup" test_nft_cgroup
run_case "dscpmap: DSCP to class, the rest auto" test_dscpmap
run_case "aiclassctl profile roce: DSCP 26 data to training, 48 CNPs to 1:1" test_profile_roce
run_case "aiclassctl profile diffserv: EF to 1:1, CS1 to training" test_profile_diffserv
ktap_finish
