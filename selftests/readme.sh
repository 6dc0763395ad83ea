#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every tc, nft and aiclassctl command of README.md, in the README's order,
# as a user types it, on a device named eth0 in a namespace of its own:
# each must succeed.  (The make, modprobe and systemctl lines are run by
# install_tree.sh, testbed.sh and tool_install.sh.)
. "$(dirname "$0")/lib.sh"

NS=aic-readme

# readme_commands: the README's indented command lines for tc, nft and
# aiclassctl, trailing comments cut.
readme_commands() {
	sed -nE 's/^    ((tc|nft|aiclassctl) .*)$/\1/p' "$TOP/README.md" |
		sed -E 's/[[:space:]]+# .*$//'
}

test_readme_commands() {
	local cmd n=0 cg svc rc list
	cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	if [ -z "$cg" ]; then
		cg=/sys/fs/cgroup
		mount -t cgroup2 none "$cg" || skip "cannot mount cgroup2"
	fi
	svc=$cg/system.slice/inference.service
	mkdir -p "$svc"
	defer rmdir "$svc" "$cg/system.slice"
	ns_create "$NS"
	defer nft delete table inet aiclass
	ip -n "$NS" link add eth0 type dummy
	ip -n "$NS" link set eth0 up
	# (The guest has no /dev/fd for a process substitution.)
	list=$(mktemp)
	defer rm -f "$list"
	readme_commands >"$list"
	while IFS= read -r cmd; do
		n=$((n + 1))
		rc=0
		case $cmd in
		"aiclassctl watch"*)
			# Interactive: it must be running after a second.
			timeout 2 ip netns exec "$NS" sh -c "$cmd" \
				</dev/null >/dev/null 2>&1 || rc=$?
			[ "$rc" -eq 124 ] || fail "'$cmd' exited $rc"
			;;
		nft*)
			# `ip netns exec` remounts /sys, hiding the cgroup2
			# tree nft resolves the path in: nft runs here.
			sh -c "$cmd" </dev/null >/dev/null ||
				fail "README command failed: $cmd"
			;;
		*)
			ip netns exec "$NS" sh -c "$cmd" </dev/null >/dev/null ||
				fail "README command failed: $cmd"
			;;
		esac
		echo "ok: $cmd"
	done <"$list"
	[ "$n" -ge 20 ] || fail "only $n commands found in README.md"
}

ktap_header
require_cmd nft
aiclass_load
ktap_plan 1
run_case "every tc, nft and aiclassctl command in README.md succeeds" test_readme_commands
ktap_finish
