#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tc plugin's and aiclassctl's install layout and the systemd unit:
# make install into a DESTDIR under PREFIX=/usr and /usr/local puts every
# file where the system looks for it, make uninstall removes them all; the
# installed aiclass@.service passes systemd-analyze verify and scores below
# 2.0 in systemd-analyze security.  Needs no kernel module.
. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d)
defer rm -rf "$TMP"
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)

# install_tree PREFIX: install both into $TMP/PREFIX-tree; prints the files.
install_tree() {
	local d=$TMP/tree$(echo "$1" | tr / _)
	rm -rf "$d"
	make -s -C "$TOP/tc" install DESTDIR="$d" PREFIX="$1" >&2
	make -s -C "$TOP/tools/aiclassctl" install DESTDIR="$d" PREFIX="$1" >&2
	(cd "$d" && find . -type f | sed 's|^\.||' | sort)
}

# expect_tree PREFIX FILE...: exactly these files, then uninstall leaves none.
expect_tree() {
	local prefix=$1 d=$TMP/tree$(echo "$1" | tr / _) got want
	shift
	got=$(install_tree "$prefix")
	want=$(printf '%s\n' "$@" | sort)
	echo "$got"
	[ "$got" = "$want" ] || fail "PREFIX=$prefix installs $(echo "$got" | tr '\n' ' '), want $(echo "$want" | tr '\n' ' ')"
	make -s -C "$TOP/tc" uninstall DESTDIR="$d" PREFIX="$prefix"
	make -s -C "$TOP/tools/aiclassctl" uninstall DESTDIR="$d" PREFIX="$prefix"
	[ -z "$(cd "$d" && find . -type f)" ] || fail "uninstall left $(cd "$d" && find . -type f)"
}

test_prefix_usr() {
	expect_tree /usr /usr/lib/"$MULTIARCH"/tc/q_aiclass.so \
		/usr/share/man/man8/tc-aiclass.8 /usr/sbin/aiclassctl \
		/usr/share/man/man8/aiclassctl.8 \
		/usr/lib/systemd/system/aiclass@.service \
		/etc/aiclass/example.conf.sample
	grep -q "^ExecStart=/usr/sbin/aiclassctl apply %d/%I.conf dev %I --create$" \
		"$TMP/tree_usr/usr/lib/systemd/system/aiclass@.service" 2>/dev/null ||
		install_tree /usr >/dev/null
	grep -q "^ExecStart=/usr/sbin/aiclassctl apply %d/%I.conf dev %I --create$" \
		"$TMP/tree_usr/usr/lib/systemd/system/aiclass@.service" ||
		fail "the unit does not run /usr/sbin/aiclassctl"
}

test_prefix_usr_local() {
	# tc looks in its own directory whatever PREFIX is
	expect_tree /usr/local /usr/lib/"$MULTIARCH"/tc/q_aiclass.so \
		/usr/local/share/man/man8/tc-aiclass.8 /usr/local/sbin/aiclassctl \
		/usr/local/share/man/man8/aiclassctl.8 \
		/usr/local/lib/systemd/system/aiclass@.service \
		/etc/aiclass/example.conf.sample
}

test_cflags_keep_pic() {
	make -s -C "$TOP/tc" clean
	make -s -C "$TOP/tc" CFLAGS=-O0 || fail "make -C tc CFLAGS=-O0 failed"
	make -s -C "$TOP/tc"  -B >/dev/null
}

# The unit as installed, its ExecStart pointing at the aiclassctl built
# here (verify checks that the command exists).
unit_copy() {
	install_tree /usr >/dev/null
	mkdir -p "$TMP/unit"
	sed "s|/usr/sbin/aiclassctl|$TOP/tools/aiclassctl/aiclassctl|" \
		"$TMP/tree_usr/usr/lib/systemd/system/aiclass@.service" \
		>"$TMP/unit/aiclass@.service"
}

test_unit_verify() {
	require_cmd systemd-analyze
	unit_copy
	ln -sf "aiclass@.service" "$TMP/unit/aiclass@eth0.service"
	(cd "$TMP/unit" && systemd-analyze verify --man=no "$TMP/unit/aiclass@eth0.service") \
		>"$TMP/verify.txt" 2>&1 || true
	cat "$TMP/verify.txt"
	! grep -q "aiclass@" "$TMP/verify.txt" || fail "systemd-analyze verify complains about the unit"
}

test_unit_security() {
	require_cmd systemd-analyze
	local score
	unit_copy
	systemd-analyze security --offline=true "$TMP/unit/aiclass@.service" >"$TMP/sec.txt" 2>&1 || true
	tail -n 3 "$TMP/sec.txt"
	score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$TMP/sec.txt")
	[ -n "$score" ] || fail "no exposure level in systemd-analyze security output"
	awk -v s="$score" 'BEGIN { exit !(s < 2.0) }' || fail "exposure $score, want below 2.0"
}

# Issue 26, 6: the dynamic user cannot read a root-only configuration, so
# the unit has systemd (root) hand it over as a credential and reads that.
test_unit_root_only_conf() {
	unit_copy
	local u=$TMP/unit/aiclass@.service
	grep -qx 'LoadCredential=%I.conf:/etc/aiclass/%I.conf' "$u" ||
		fail "the unit does not load /etc/aiclass/%I.conf as a credential"
	grep -q '^ExecStart=.* apply %d/%I.conf dev %I --create$' "$u" ||
		fail "ExecStart does not read the credential"
	! grep -q '^ExecStart=.*/etc/aiclass' "$u" ||
		fail "ExecStart reads /etc/aiclass itself, as the dynamic user"
}

ktap_plan 6
run_case "PREFIX=/usr: install and uninstall" test_prefix_usr
run_case "PREFIX=/usr/local: install and uninstall" test_prefix_usr_local
run_case "make -C tc CFLAGS=-O0 keeps what the plugin needs" test_cflags_keep_pic
run_case "aiclass@.service passes systemd-analyze verify" test_unit_verify
run_case "aiclass@.service scores below 2.0 in systemd-analyze security" test_unit_security
run_case "aiclass@.service reads a root-only config through LoadCredential" test_unit_root_only_conf
ktap_finish
