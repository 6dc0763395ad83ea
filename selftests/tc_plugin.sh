#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftests/tc_plugin.sh - the tc plugin (tc/q_aiclass.so) against the real
# module and the distribution's own tc: every case of tc-tests/aiclass.json,
# in the format of the kernel's tools/testing/selftests/tc-testing (id,
# name, setup, cmdUnderTest, expExitCode, verifyCmd, matchPattern,
# matchCount, teardown; plus dependsOn, a command whose failure skips the
# case).  Expected exit codes: 1 when tc's parser (the plugin) refuses,
# 2 when the kernel does (its extack is checked in verifyCmd).
#
# Commands run under bash with these variables set: TC (tc with
# TC_LIB_DIR=$TOP/tc), IP, DEV1 and DEV2 (dummy devices), TOP, TMP (a
# scratch directory) and TC615 (tc 6.15 from bookworm-backports, unpacked
# at $AICLASS_TC615, default /var/cache/aiclass-tc615/root/sbin/tc; cases
# that need it skip when it is not there).
#
# Usage: selftests/tc_plugin.sh [-v] [ID|NAME-REGEX ...]   (as root, in the
# test bed guest: tools/vm/run -- selftests/tc_plugin.sh).  KTAP output;
# exit 0 pass, 1 fail, 4 skip.

TOP=$(cd "$(dirname "$0")/.." && pwd)
export TOP

ktap_skip_all() {
	echo "TAP version 13"
	echo "1..0 # SKIP $*"
	exit 4
}

[ "$(id -u)" -eq 0 ] || ktap_skip_all "needs root"
command -v tc >/dev/null || ktap_skip_all "no tc"
command -v python3 >/dev/null || ktap_skip_all "no python3"
if [ ! -f "$TOP/tc/q_aiclass.so" ] || [ "$TOP/tc/q_aiclass.c" -nt "$TOP/tc/q_aiclass.so" ]; then
	make -s -C "$TOP/tc" >&2 || ktap_skip_all "cannot build tc/q_aiclass.so"
fi
if [ ! -d /sys/module/sch_aiclass ]; then
	[ -f "$TOP/sch_aiclass.ko" ] || ktap_skip_all "sch_aiclass.ko is not built (run make)"
	insmod "$TOP/sch_aiclass.ko" || ktap_skip_all "insmod sch_aiclass.ko failed"
fi

export TC_LIB_DIR="$TOP/tc"
export TC=tc IP=ip DEV1=aictc0 DEV2=aictc1
export TC615=${AICLASS_TC615:-/var/cache/aiclass-tc615/root/sbin/tc}
TMP=$(mktemp -d)
export TMP
trap 'rm -rf "$TMP"; ip link del aictc0 2>/dev/null; ip link del aictc1 2>/dev/null' EXIT

python3 - "$TOP/selftests/tc-tests/aiclass.json" "$@" <<'EOF'
import json
import re
import subprocess
import sys

CMD_TIMEOUT = 60


def run(cmd):
    """Run one shell command; (exit code, stdout + stderr)."""
    try:
        p = subprocess.run(["bash", "-c", cmd], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=CMD_TIMEOUT)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return -1, "timed out after %ds" % CMD_TIMEOUT


def run_list(cmds, what, diag):
    """setup/teardown: strings, or [cmd, allowed exit codes...]"""
    for c in cmds:
        allowed = [0]
        if isinstance(c, list):
            c, allowed = c[0], [int(x) for x in c[1:]] or [0]
        rc, out = run(c)
        if rc not in allowed:
            diag.append("%s failed (exit %d): %s" % (what, rc, c))
            diag.extend(out.splitlines()[-5:])
            return False
    return True


def one(case, diag):
    """'pass', 'fail' or 'skip REASON'."""
    dep = case.get("dependsOn")
    if dep and run(dep)[0] != 0:
        return "skip dependsOn failed: " + dep
    ok = run_list(case.get("setup", []), "setup", diag)
    try:
        if not ok:
            return "fail"
        rc, out = run(case["cmdUnderTest"])
        exp = int(case.get("expExitCode", "0"))
        if rc != exp:
            diag.append("cmdUnderTest exit %d, expected %d: %s"
                        % (rc, exp, case["cmdUnderTest"]))
            diag.extend(out.splitlines()[-5:])
            return "fail"
        verify = case.get("verifyCmd")
        if verify:
            _, out = run(verify)
            found = re.findall(case["matchPattern"], out, re.M)
            want = int(case.get("matchCount", "1"))
            if len(found) != want:
                diag.append("matchPattern %r: %d matches, expected %d"
                            % (case["matchPattern"], len(found), want))
                diag.append("verifyCmd: " + verify)
                diag.extend(out.splitlines()[-8:])
                return "fail"
        return "pass"
    finally:
        run_list(case.get("teardown", []), "teardown", [])


def main():
    cases = json.load(open(sys.argv[1]))
    verbose = "-v" in sys.argv[2:]
    sel = [a for a in sys.argv[2:] if a != "-v"]
    if sel:
        cases = [c for c in cases
                 if any(c["id"] == s or re.search(s, c["name"]) for s in sel)]
    print("TAP version 13")
    print("1..%d" % len(cases))
    npass = nfail = nskip = 0
    for n, case in enumerate(cases, 1):
        diag = []
        res = one(case, diag)
        title = "%s %s" % (case["id"], case["name"])
        if res == "pass":
            npass += 1
            print("ok %d %s" % (n, title))
        elif res.startswith("skip"):
            nskip += 1
            print("ok %d %s # SKIP %s" % (n, title, res[5:]))
        else:
            nfail += 1
            print("not ok %d %s" % (n, title))
        if res == "fail" or verbose:
            for d in diag:
                print("# " + d)
        sys.stdout.flush()
    print("# Totals: pass:%d fail:%d skip:%d" % (npass, nfail, nskip))
    if nfail:
        sys.exit(1)
    sys.exit(0 if npass or not nskip else 4)


main()
EOF
exit $?
