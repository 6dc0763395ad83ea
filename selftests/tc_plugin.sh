#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftests/tc_plugin.sh - the tc plugin (tc/q_aiclass.so) against the real
# module and a distribution's own tc: every case of tc-tests/aiclass.json,
# in the format of the kernel's tools/testing/selftests/tc-testing (id,
# name, setup, cmdUnderTest, expExitCode, verifyCmd, matchPattern,
# matchCount, teardown; plus dependsOn, a command whose failure skips the
# case).  Expected exit codes: 1 when tc's parser (the plugin) refuses,
# 2 when the kernel does (its extack is checked in verifyCmd).
#
# The tc under test is $AICLASS_TC (default: the system's, iproute2 6.1 on
# bookworm); selftests/tc_plugin_tc615.sh runs the same cases with tc 6.15
# from bookworm-backports.  Commands see these variables: TC (that tc, with
# TC_LIB_DIR=$TOP/tc), IP, DEV1 and DEV2 (dummy devices), TOP and TMP (a
# scratch directory).
#
# Speed (every process start is slow under TCG): a command that is plain
# words, `;` and `2>&1` is started without a shell, and the fixture commands
# "$IP link add dev D type dummy [|| /bin/true]", "$IP link set dev D up"
# and "$IP link del dev D [type dummy]" are done over rtnetlink in the
# runner itself, with ip's exit codes; everything else runs under bash.
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

TC=${AICLASS_TC:-tc}
[ "$(id -u)" -eq 0 ] || ktap_skip_all "needs root"
command -v "$TC" >/dev/null || ktap_skip_all "no tc at $TC"
command -v python3 >/dev/null || ktap_skip_all "no python3"
if [ ! -f "$TOP/tc/q_aiclass.so" ] || [ "$TOP/tc/q_aiclass.c" -nt "$TOP/tc/q_aiclass.so" ]; then
	make -s -C "$TOP/tc" >&2 || ktap_skip_all "cannot build tc/q_aiclass.so"
fi
AICLASS_KO=${AICLASS_KO:-$TOP/sch_aiclass.ko}
if [ ! -d /sys/module/sch_aiclass ]; then
	[ -f "$AICLASS_KO" ] || ktap_skip_all "$AICLASS_KO is not built (run make)"
	insmod "$AICLASS_KO" || ktap_skip_all "insmod $AICLASS_KO failed"
fi

export TC_LIB_DIR="$TOP/tc"
export TC IP=ip DEV1=aictc0 DEV2=aictc1
TMP=$(mktemp -d)
export TMP
trap 'rm -rf "$TMP"; ip link del aictc0 2>/dev/null; ip link del aictc1 2>/dev/null' EXIT
echo "# $("$TC" -V)"

python3 - "$TOP/selftests/tc-tests/aiclass.json" "$@" <<'PYEOF'
import errno
import json
import os
import re
import shlex
import socket
import struct
import subprocess
import sys

CMD_TIMEOUT = 60
VARS = ("TC", "IP", "DEV1", "DEV2", "TOP", "TMP")


class Rtnl:
    """Just enough rtnetlink for the dummy devices of the fixtures."""
    RTM_NEWLINK, RTM_DELLINK, NLMSG_ERROR = 16, 17, 2
    F_REQUEST, F_ACK, F_EXCL, F_CREATE = 0x1, 0x4, 0x200, 0x400
    IFLA_IFNAME, IFLA_LINKINFO, IFLA_INFO_KIND, IFF_UP = 3, 18, 1, 1

    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  socket.NETLINK_ROUTE)
        self.sock.bind((0, 0))
        self.seq = 0

    @staticmethod
    def attr(kind, payload):
        n = 4 + len(payload)
        return struct.pack("HH", n, kind) + payload + b"\0" * (-n % 4)

    def request(self, msg, flags, index=0, ifflags=0, change=0, attrs=b""):
        """Send one request; 0 or the kernel's errno."""
        self.seq += 1
        body = struct.pack("BxHiII", socket.AF_UNSPEC, 0, index, ifflags,
                           change) + attrs
        self.sock.send(struct.pack("IHHII", 16 + len(body), msg,
                                   flags | self.F_REQUEST | self.F_ACK,
                                   self.seq, 0) + body)
        while True:
            data = self.sock.recv(65536)
            off = 0
            while off + 16 <= len(data):
                n, kind, _, seq, _ = struct.unpack_from("IHHII", data, off)
                if kind == self.NLMSG_ERROR and seq == self.seq:
                    return -struct.unpack_from("i", data, off + 16)[0]
                off += (n + 3) & ~3

    def run(self, argv):
        """`ip link add|set|del ...` of the fixtures: (exit code, output)
        as ip gives them, or None when argv is something else."""
        m = re.fullmatch(r"link (add|set|del) dev (\S+)( type dummy| up)?",
                         " ".join(argv[1:]))
        if not m or (m[1], m[3]) not in (("add", " type dummy"),
                                          ("set", " up"), ("del", None),
                                          ("del", " type dummy")):
            return None
        name = m[2]
        if m[1] == "add":
            kind = self.attr(self.IFLA_INFO_KIND, b"dummy")
            err = self.request(self.RTM_NEWLINK, self.F_CREATE | self.F_EXCL,
                               attrs=self.attr(self.IFLA_IFNAME,
                                               name.encode() + b"\0") +
                               self.attr(self.IFLA_LINKINFO, kind))
        else:
            try:
                index = socket.if_nametoindex(name)
            except OSError:
                return 1, 'Cannot find device "%s"\n' % name
            if m[1] == "set":
                err = self.request(self.RTM_NEWLINK, 0, index, self.IFF_UP,
                                   self.IFF_UP)
            else:
                err = self.request(self.RTM_DELLINK, 0, index)
        if err:
            return 2, "RTNETLINK answers: %s\n" % os.strerror(err)
        return 0, ""


RTNL = Rtnl()
SHELL_CHARS = re.compile(r"[|&<>()`\\\"'*?\[\]#~{}$=!\n]")


def plain(cmd):
    """A command of plain words, `;` and `2>&1`: its argv lists (the known
    $VARs expanded), else None."""
    unknown = []

    def expand(m):
        name = m[1] or m[2]
        if name not in VARS:
            unknown.append(name)
            return ""
        return os.environ[name]
    out = []
    for part in cmd.split(";"):
        part = re.sub(r"(^|\s)2>&1(?=\s|$)", " ", part)
        if SHELL_CHARS.search(re.sub(r"\$(?:(\w+)|\{(\w+)\})", "", part)):
            return None
        argv = shlex.split(re.sub(r"\$(?:(\w+)|\{(\w+)\})", expand, part))
        if unknown or not argv:
            return None
        out.append(argv)
    return out


def run(cmd):
    """Run one command; (exit code, stdout + stderr)."""
    m = re.fullmatch(r"(.*?)\s*\|\|\s*(/bin/)?true", cmd)
    if m:
        return 0, run(m[1])[1]
    cmds = plain(cmd)
    if cmds is None:
        cmds = [["bash", "-c", cmd]]
    rc, out = 0, ""
    for argv in cmds:
        res = RTNL.run(argv) if argv[0] == os.environ["IP"] else None
        if res is None:
            try:
                p = subprocess.run(argv, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT,
                                   timeout=CMD_TIMEOUT)
                res = p.returncode, p.stdout.decode(errors="replace")
            except subprocess.TimeoutExpired:
                res = -1, "timed out after %ds" % CMD_TIMEOUT
            except OSError as e:
                res = 127, "%s: %s\n" % (argv[0], e.strerror)
        rc, out = res[0], out + res[1]
    return rc, out


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
PYEOF
exit $?
