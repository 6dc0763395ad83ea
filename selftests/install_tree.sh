#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make install and make uninstall into a DESTDIR: the files, their modes
# and paths for PREFIX=/usr (nothing under or naming /usr/local) and for
# the default /usr/local; the module where DKMS puts it; uninstall leaves
# no file behind but configuration under /etc.  Installs the checkout's
# build as it is (make -o all: nothing is rebuilt), so it skips until the
# module, the tc plugin and aiclassctl are built.  Touches nothing outside
# its scratch directories.
. "$(dirname "$0")/lib.sh"

KVER=$(uname -r)
TRIPLET=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)

built() {
	[ -f "$TOP/sch_aiclass.ko" ] && [ -f "$TOP/tc/q_aiclass.so" ] &&
		[ -x "$TOP/tools/aiclassctl/aiclassctl" ]
}

# do_make DESTDIR TARGET [VAR=VALUE...]: without lib.sh's TC_LIB_DIR (the
# checkout's tc/), which would be the plugin's install directory.
do_make() {
	local d=$1 t=$2
	shift 2
	env -u TC_LIB_DIR make -s -C "$TOP" -o all -o module "$t" \
		DESTDIR="$d" KVER="$KVER" "$@"
}

# mode_is FILE MODE
mode_is() {
	[ -e "$1" ] || fail "missing ${1#"$D"}"
	check_eq "$(stat -c %a "$1")" "$2" "mode of ${1#"$D"}"
}

# unit_file DESTDIR: the installed aiclass@.service, wherever the layout puts it
unit_file() {
	find "$1" -name 'aiclass@.service' -type f | head -n 1
}

test_prefix_usr() {
	D=$(mktemp -d)
	defer rm -rf "$D"
	do_make "$D" install PREFIX=/usr
	(cd "$D" && find . -type f -o -type l | sort | sed 's/^\./  /')
	mode_is "$D/lib/modules/$KVER/updates/sch_aiclass.ko" 644
	mode_is "$D/usr/sbin/aiclassctl" 755
	mode_is "$D/usr/share/man/man8/aiclassctl.8" 644
	mode_is "$D/usr/share/man/man8/tc-aiclass.8" 644
	# where Debian's tc looks for q_*.so (its TC_LIB_DIR)
	mode_is "$D/usr/lib/$TRIPLET/tc/q_aiclass.so" 644
	local unit
	unit=$(unit_file "$D")
	[ -n "$unit" ] || fail "no aiclass@.service installed"
	mode_is "$unit" 644
	grep -q '^ExecStart=/usr/sbin/aiclassctl' "$unit" ||
		fail "${unit#"$D"}: ExecStart does not run /usr/sbin/aiclassctl"
	if [ -n "$(find "$D" -path '*/usr/local*' | head -n 1)" ]; then
		find "$D" -path '*/usr/local*'
		fail "PREFIX=/usr installed under /usr/local"
	fi
	if grep -rIl /usr/local "$D"; then
		fail "PREFIX=/usr: the files above name /usr/local"
	fi
}

test_prefix_default() {
	D=$(mktemp -d)
	defer rm -rf "$D"
	do_make "$D" install
	mode_is "$D/usr/local/sbin/aiclassctl" 755
	mode_is "$D/usr/local/share/man/man8/aiclassctl.8" 644
	mode_is "$D/lib/modules/$KVER/updates/sch_aiclass.ko" 644
	local unit
	unit=$(unit_file "$D")
	[ -n "$unit" ] || fail "no aiclass@.service installed"
	grep -q '^ExecStart=/usr/local/sbin/aiclassctl' "$unit" ||
		fail "${unit#"$D"}: ExecStart does not run /usr/local/sbin/aiclassctl"
}

test_sbindir_mandir() {
	D=$(mktemp -d)
	defer rm -rf "$D"
	do_make "$D" install PREFIX=/usr SBINDIR=/opt/ai/sbin MANDIR=/opt/ai/man
	mode_is "$D/opt/ai/sbin/aiclassctl" 755
	mode_is "$D/opt/ai/man/man8/aiclassctl.8" 644
	mode_is "$D/opt/ai/man/man8/tc-aiclass.8" 644
	[ ! -e "$D/usr/sbin/aiclassctl" ] || fail "SBINDIR ignored: /usr/sbin/aiclassctl"
}

test_uninstall() {
	local prefix left
	for prefix in /usr /usr/local; do
		D=$(mktemp -d)
		defer rm -rf "$D"
		do_make "$D" install PREFIX=$prefix
		do_make "$D" uninstall PREFIX=$prefix
		left=$(cd "$D" && find . -type f -o -type l | grep -v '^\./etc/' || true)
		[ -z "$left" ] || fail "PREFIX=$prefix: uninstall left:"$'\n'"$left"
		echo "PREFIX=$prefix: uninstall removed every installed file but /etc"
	done
}

test_dkms_agrees() {
	local loc
	loc=$(sed -n 's/^DEST_MODULE_LOCATION\[0\]="\(.*\)"$/\1/p' "$TOP/dkms.conf")
	check_eq "$loc" /updates "dkms.conf DEST_MODULE_LOCATION"
	D=$(mktemp -d)
	defer rm -rf "$D"
	do_make "$D" install PREFIX=/usr
	[ -f "$D/lib/modules/$KVER$loc/sch_aiclass.ko" ] ||
		fail "make install did not put the module in $loc, where DKMS does"
	# BUILD_EXCLUSIVE_KERNEL: every kernel from 6.1 on, none before
	local re v want
	re=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$TOP/dkms.conf")
	[ -n "$re" ] || fail "dkms.conf declares no BUILD_EXCLUSIVE_KERNEL"
	for v in 6.1.0-57-amd64:y 6.12.95+deb12-amd64:y 6.9.1:y 6.10.0:y 6.19.3:y \
		7.0.0:y 10.1.2:y 6.0.19:n 5.15.0-91-generic:n 4.19.0:n; do
		want=${v##*:}
		v=${v%:*}
		if [[ $v =~ $re ]]; then
			[ "$want" = y ] || fail "dkms.conf would build for $v"
		else
			[ "$want" = n ] || fail "dkms.conf would not build for $v"
		fi
	done
	echo "BUILD_EXCLUSIVE_KERNEL $re: 6.1 and later only"
}

# Issue 26, 7: the userspace alone, for a packager: no module, no depmod.
test_install_tools() {
	D=$(mktemp -d)
	defer rm -rf "$D"
	env -u TC_LIB_DIR make -s -C "$TOP" install-tools DESTDIR="$D" PREFIX=/usr
	(cd "$D" && find . -type f | sort | sed 's/^\./  /')
	mode_is "$D/usr/sbin/aiclassctl" 755
	mode_is "$D/usr/share/man/man8/aiclassctl.8" 644
	mode_is "$D/usr/share/man/man8/tc-aiclass.8" 644
	mode_is "$D/usr/lib/$TRIPLET/tc/q_aiclass.so" 644
	[ -n "$(unit_file "$D")" ] || fail "no aiclass@.service installed"
	[ ! -e "$D/lib/modules" ] || fail "install-tools installed a module"
	env -u TC_LIB_DIR make -s -C "$TOP" uninstall-tools DESTDIR="$D" PREFIX=/usr
	left=$(cd "$D" && find . -type f | grep -v '^\./etc/' || true)
	[ -z "$left" ] || fail "uninstall-tools left:"$'\n'"$left"
}

# Issue 26, 2: install for uname -r or KVER=, never for the test bed's
# cached kernel; no headers: stop, naming the kernel; a module built for
# another kernel is not installed.
test_install_kernel() {
	local out rc
	D=$(mktemp -d)
	defer rm -rf "$D"
	# what make install would do, even with the test bed's kernel named
	out=$(env -u TC_LIB_DIR AICLASS_KERNEL=6.1.0-99-testbed make -s -n -C "$TOP" -o module \
		install DESTDIR="$D")
	grep -qF "$D/lib/modules/$(uname -r)/updates/sch_aiclass.ko" <<<"$out" ||
		fail "make install does not install for uname -r ($(uname -r))"
	if grep -E 'aiclass-kernels|6\.1\.0-99-testbed' <<<"$out"; then
		fail "make install names the test bed's kernel cache"
	fi
	# no headers for the kernel asked for: one clear message, nothing done
	rc=0
	out=$(env -u TC_LIB_DIR make -s -C "$TOP" install DESTDIR="$D" \
		KVER=0.0.0-aicnone 2>&1) || rc=$?
	echo "$out"
	[ "$rc" -ne 0 ] || fail "make install KVER=0.0.0-aicnone succeeded"
	grep -qF "no kernel headers for 0.0.0-aicnone in /lib/modules/0.0.0-aicnone/build" <<<"$out" ||
		fail "the message does not name the kernel"
	rc=0
	out=$(env -u TC_LIB_DIR make -s -C "$TOP" dkms KVER=0.0.0-aicnone 2>&1) || rc=$?
	[ "$rc" -ne 0 ] && grep -qF "no kernel headers for 0.0.0-aicnone" <<<"$out" ||
		fail "make dkms without headers: $out"
	if [ ! -f "/lib/modules/$(uname -r)/build/Makefile" ]; then
		rc=0
		out=$(env -u TC_LIB_DIR make -s -C "$TOP" install DESTDIR="$D" 2>&1) || rc=$?
		echo "$out"
		[ "$rc" -ne 0 ] || fail "make install without headers succeeded"
		grep -qF "no kernel headers for $(uname -r) (the running kernel)" <<<"$out" ||
			fail "the message does not name the running kernel"
	fi
	# the module as built (make -o module), for another kernel than KVER
	rc=0
	out=$(do_make "$D" install-module KVER=0.0.0-aicother 2>&1) || rc=$?
	echo "$out"
	[ "$rc" -ne 0 ] || fail "a module for $(modinfo -F vermagic "$TOP/sch_aiclass.ko") installed for 0.0.0-aicother"
	grep -qF "not for 0.0.0-aicother" <<<"$out" || fail "no message on the kernel mismatch"
	[ -z "$(find "$D" -type f)" ] || fail "files installed although make stopped"
}

built || skip "the module, tc/q_aiclass.so or aiclassctl is not built (make)"
require_cmd make install gcc

ktap_plan 7
run_case "install with PREFIX=/usr: paths, modes, nothing in /usr/local" test_prefix_usr
run_case "install with the default PREFIX /usr/local" test_prefix_default
run_case "SBINDIR and MANDIR are honoured" test_sbindir_mandir
run_case "uninstall removes what install put there" test_uninstall
run_case "make install and DKMS agree: updates/, kernels from 6.1" test_dkms_agrees
run_case "make install-tools: plugin, tool, man pages, unit, no module" test_install_tools
run_case "make install and dkms: uname -r or KVER=, never the test bed's, headers or a clear stop" test_install_kernel
ktap_finish
