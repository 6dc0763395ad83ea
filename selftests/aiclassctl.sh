#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# aiclassctl against the real module: show (text and JSON, checked against
# tc -s -j), set (changes exactly what it names; refusals change nothing
# and show the kernel's message), watch under tmux, apply and the presets,
# metrics (Prometheus text, checked by promtool), error messages and exit
# codes, valgrind.  Runs on a dummy device with IPv6 off, so that nothing
# but our own pings goes through the qdisc.
. "$(dirname "$0")/lib.sh"

DEV=aicctl0
DEV2=aicctl1
RT2=aicctl2
RT3=aicctl3
CTL=$TOP/tools/aiclassctl/aiclassctl
TMP=$(mktemp -d)

ctl() {
	"$CTL" "$@"
}

# fresh_qdisc [DEV]: a default aiclass 1: as root, counters at zero.
fresh_qdisc() {
	local dev=${1:-$DEV}
	tc qdisc del dev "$dev" root 2>/dev/null || true
	tc qdisc add dev "$dev" root handle 1: aiclass
}

# snapshot FILE: our own JSON, one sample (no rates).
snapshot() {
	ctl show dev "$DEV" --json --interval 0 >"$1"
}

# A few ICMP packets through the qdisc (the neighbour is static, the
# dummy device drops them after the qdisc).
ping_some() {
	ping -c "${1:-5}" -i 0.2 -w 3 10.77.0.2 >/dev/null 2>&1 || true
}

# expect_rc WANT CMD...: run CMD, keep stderr in $TMP/err, check the exit.
expect_rc() {
	local want=$1 rc=0
	shift
	"$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	sed 's/^/  stderr: /' "$TMP/err"
	[ "$rc" -eq "$want" ] || fail "'$*' exited $rc, expected $want"
}

expect_err() {
	grep -qF -- "$1" "$TMP/err" || fail "stderr lacks \"$1\""
}

# same_config A B: options, class weights and SLOs equal in two snapshots.
same_config() {
	python3 - "$1" "$2" <<'EOF' || fail "configuration changed"
import json, sys
a, b = (json.load(open(f))["instances"][0] for f in sys.argv[1:3])
wa = {c["class"]: (c.get("weight"), c.get("slo")) for c in a["classes"]}
wb = {c["class"]: (c.get("weight"), c.get("slo")) for c in b["classes"]}
bad = [k for k in a["options"] if a["options"][k] != b["options"][k]]
for k in bad:
    print("option %s: %r -> %r" % (k, a["options"][k], b["options"][k]))
if wa != wb:
    print("class weights, slos: %r -> %r" % (wa, wb))
sys.exit(1 if bad or wa != wb else 0)
EOF
}

# tc_classes FILE: `tc -s class show` as JSON ({handle: {bytes, packets,
# drops, backlog, qlen, weight}}); tc 6.1 prints classes as text even
# under -j.
tc_classes() {
	tc -s class show dev "$DEV" | python3 -c '
import json, re, sys
out, cur = {}, None
for line in sys.stdin:
    m = re.match(r"class aiclass (\S+) .*?(?:weight (\d+))?\s*$", line)
    if m:
        cur = out.setdefault(m.group(1), {})
        cur["weight"] = int(m.group(2)) if m.group(2) else None
        continue
    m = re.search(r"Sent (\d+) bytes (\d+) pkt \(dropped (\d+)", line)
    if m and cur is not None:
        cur.update(bytes=int(m.group(1)), packets=int(m.group(2)),
                   drops=int(m.group(3)))
    m = re.search(r"backlog (\d+)b (\d+)p", line)
    if m and cur is not None:
        cur.update(backlog=int(m.group(1)), qlen=int(m.group(2)))
json.dump(out, sys.stdout)' >"$1"
}

# ------------------------------------------------------------------ cases

test_show_json_matches_tc() {
	fresh_qdisc
	ping_some 5
	snapshot "$TMP/ctl.json"
	tc -s -j qdisc show dev "$DEV" >"$TMP/tcq.json"
	tc_classes "$TMP/tcc.json"
	python3 -m json.tool "$TMP/ctl.json" >/dev/null || fail "show --json is not JSON"
	python3 - "$TMP/ctl.json" "$TMP/tcq.json" "$TMP/tcc.json" <<'EOF'
import json, sys
me = json.load(open(sys.argv[1]))
tq = [q for q in json.load(open(sys.argv[2])) if q["kind"] == "aiclass"]
tc = json.load(open(sys.argv[3]))
assert len(me["instances"]) == 1 and len(tq) == 1, "one instance each"
i, q = me["instances"][0], tq[0]
errors = []
def cmp(what, mine, theirs):
    if mine != theirs:
        errors.append("%s: aiclassctl %r, tc %r" % (what, mine, theirs))
cmp("handle", i["handle"], q["handle"])
for k in ("bytes", "packets", "drops", "overlimits", "requeues",
          "backlog", "qlen"):
    cmp("qdisc " + k, i["stats"][k], q[k])
n = 0
for k, v in i["stats"].items():
    if k in q and not k.startswith("rate_") and v is not None:
        cmp("qdisc " + k, v, q[k])
        n += 1
opts = q.get("options", {})
for k, v in opts.items():
    cmp("option " + k, i["options"].get(k), v)
mine = {c["class"]: c for c in i["classes"]}
seen = 0
for h, c in tc.items():
    if h not in mine:
        continue
    seen += 1
    for k in ("bytes", "packets", "drops", "backlog", "qlen", "weight"):
        cmp(h + " " + k, mine[h].get(k), c.get(k))
cmp("classes", seen, len(mine))
assert i["stats"]["packets"] >= 5, "the pings went through the qdisc"
print("compared %d qdisc counters, %d options, %d classes" %
      (n, len(opts), seen))
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
EOF
}

test_show_text() {
	fresh_qdisc
	ping_some 3
	ctl show dev "$DEV" --interval 0.3 | tee "$TMP/show.txt"
	grep -q "^aiclass 1: dev $DEV root" "$TMP/show.txt" || fail "no header line"
	grep -q "burst 64Kb" "$TMP/show.txt" || fail "no options"
	grep -q "Sent [0-9]* bytes [1-9][0-9]* pkt" "$TMP/show.txt" || fail "no qdisc stats"
	grep -qE '^  1:1 +latency +- ' "$TMP/show.txt" || fail "no row for 1:1"
	grep -qE '^  1:14 +training +1 ' "$TMP/show.txt" || fail "no row for 1:14"
	grep -q "(rates over 0.30s)" "$TMP/show.txt" || fail "rate interval not stated"
}

test_set_exactly() {
	fresh_qdisc
	snapshot "$TMP/before.json"
	ctl set dev "$DEV" burst 128kb train_share 20 idle 2ms ce_threshold 500us \
		rate 100mbit limit 5000 lat_limit 512 memory_limit 16mb \
		flows 2048 quantum 3000 noroce default_class 1:12 \
		priomap 1:1 1:2 auto 1:13
	snapshot "$TMP/after.json"
	tc -j qdisc show dev "$DEV" >"$TMP/tcq.json"
	python3 - "$TMP/before.json" "$TMP/after.json" "$TMP/tcq.json" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))["instances"][0]["options"]
a = json.load(open(sys.argv[2]))["instances"][0]["options"]
t = [q for q in json.load(open(sys.argv[3])) if q["kind"] == "aiclass"][0]
t = t.get("options", {})
want = {"burst": 131072, "train_share": 20, "idle": 2000,
        "ce_threshold": 500, "rate": 12500000, "limit": 5000,
        "lat_limit": 512, "memory_limit": 16 << 20, "flows": 2048,
        "quantum": 3000, "roce_port": 0, "default_class": 0x12,
        "priomap": [1, 2, 0, 0x13] + [0] * 12}
errors = []
for k in a:
    exp = want.get(k, b[k])
    if a[k] != exp:
        errors.append("%s: %r, expected %r" % (k, a[k], exp))
    if t and k in t and t[k] != exp:
        errors.append("tc reads %s back as %r, expected %r" % (k, t[k], exp))
print("tc read back %d options" % len(t))
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
EOF
}

test_set_weights() {
	fresh_qdisc
	snapshot "$TMP/before.json"
	ctl set dev "$DEV" weight 1:12=5 1:14=3
	snapshot "$TMP/after.json"
	tc_classes "$TMP/tcc.json"
	python3 - "$TMP/before.json" "$TMP/after.json" "$TMP/tcc.json" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))["instances"][0]
a = json.load(open(sys.argv[2]))["instances"][0]
tc = json.load(open(sys.argv[3]))
w = {c["class"]: c.get("weight") for c in a["classes"]}
exp = {"1:1": None, "1:2": None, "1:3": None,
       "1:11": 1, "1:12": 5, "1:13": 1, "1:14": 3}
errors = []
if w != exp:
    errors.append("class weights %r, expected %r" % (w, exp))
if a["options"]["weights"] != [1, 5, 1, 3]:
    errors.append("qdisc weights %r" % a["options"]["weights"])
for k in a["options"]:
    if k != "weights" and a["options"][k] != b["options"][k]:
        errors.append("option %s changed" % k)
tw = {h: c.get("weight") for h, c in tc.items()}
if tw != exp:
    errors.append("tc reads the class weights as %r" % tw)
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
EOF
}

# Issue 25: slos and slo_training on the qdisc, slo CLASS=TIME per band;
# aiclassctl and tc read the same back, show prints the SLO table.
test_set_slos() {
	fresh_qdisc
	snapshot "$TMP/before.json"
	ctl set dev "$DEV" slos 1ms 0 2500us slo_training
	ctl set dev "$DEV" slo 1:2=250ms slo 3=off
	snapshot "$TMP/after.json"
	tc qdisc show dev "$DEV" | tee "$TMP/tcq.txt"
	grep -q " slos 1ms 250ms off slo_training " "$TMP/tcq.txt" ||
		fail "tc reads other slos back"
	tc class show dev "$DEV" | has "class aiclass 1:2 root latency slo 250ms " ||
		fail "tc class show: no slo 250ms on 1:2"
	python3 - "$TMP/before.json" "$TMP/after.json" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))["instances"][0]
a = json.load(open(sys.argv[2]))["instances"][0]
errors = []
if a["options"].get("slos") != [1000, 250000, 0]:
    errors.append("slos %r" % a["options"].get("slos"))
if a["options"].get("slo_training") != 1:
    errors.append("slo_training %r" % a["options"].get("slo_training"))
for k in a["options"]:
    if k not in ("slos", "slo_training") and a["options"][k] != b["options"].get(k):
        errors.append("option %s changed" % k)
slo = {c["class"]: c.get("slo") for c in a["classes"]}
exp = {"1:1": 1000, "1:2": 250000, "1:3": 0,
       "1:11": None, "1:12": None, "1:13": None, "1:14": None}
if slo != exp:
    errors.append("class slos %r, expected %r" % (slo, exp))
for c in a["classes"]:
    keys = ("slo_met", "slo_missed", "slo_downgrades", "slo_prob")
    has = [k in c for k in keys]
    if c["class"] in ("1:1", "1:2") and not all(has):
        errors.append("%s lacks SLO counters: %r" % (c["class"], sorted(c)))
    if c["class"] not in ("1:1", "1:2") and any(has):
        errors.append("%s has SLO counters" % c["class"])
if not isinstance(a["stats"].get("slo_downgrades"), int):
    errors.append("no qdisc slo_downgrades")
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
EOF
	ctl show dev "$DEV" --interval 0 | tee "$TMP/show.txt"
	grep -qE '^  class +slo +slo_met +slo_missed +downgrades +prob$' "$TMP/show.txt" ||
		fail "show: no SLO table"
	grep -qE '^  1:2 +250ms +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+\.[0-9]{2}%$' "$TMP/show.txt" ||
		fail "show: no SLO row for 1:2"
	if grep -qE '^  1:3 +[0-9.]+(us|ms|s) ' "$TMP/show.txt"; then
		fail "show: an SLO row for 1:3, which has none"
	fi
	# off again, every band: the qdisc dumps no list
	ctl set dev "$DEV" slos off off off noslo_training
	if tc qdisc show dev "$DEV" | has " slos "; then
		fail "slos still dumped when all are off"
	fi
	ctl set --check slos 1ms slo 1:1=2ms 2=off >"$TMP/check.txt"
	grep -qxF "slos 1ms slo 1:1=2ms slo 2=off " "$TMP/check.txt" ||
		fail "--check prints $(cat "$TMP/check.txt")"
}

# refused CODE TEXT ARGS...: `set ARGS` is refused with exit CODE and TEXT
# on stderr, and the configuration is what it was.
refused() {
	local code=$1 text=$2
	shift 2
	snapshot "$TMP/before.json"
	expect_rc "$code" ctl set dev "$DEV" "$@"
	expect_err "$text"
	snapshot "$TMP/after.json"
	same_config "$TMP/before.json" "$TMP/after.json"
}

test_refusals() {
	fresh_qdisc
	ctl set dev "$DEV" weight 1:12=4 burst 100kb
	# out of range or malformed: the shared parser, nothing is sent
	refused 1 'Illegal "weight": "0" is not 1..1000' weight 1:11=0
	refused 1 'Illegal "weight": "1001" is not 1..1000' weight 1:11=1001
	refused 1 'Illegal "train_share": must be 0..90' train_share 101
	refused 1 "must be a power of two" flows 1000
	refused 1 "must be strictly increasing" thresholds 100000 50000
	# what only the qdisc's state decides: the kernel, its extack shown
	refused 2 "Need 1 to train_classes weights" weights 1 2 3 4 5
	refused 2 "Latency bands are strict priority" weight 1:1=3
	refused 2 "Thresholds must rise" thresholds 100000 300000
	refused 2 "target must be below interval" target 200ms
	refused 2 "priomap names a class that does not exist" priomap 1 1:5
	refused 2 "dscpmap names a class that does not exist" dscpmap 46:16
	# the qdisc message succeeds, a class message fails: rolled back
	refused 2 "rolled back" burst 256kb idle 5ms weight 1:13=2 1:1=3
	# 1:4 exists only once lat_bands 4 is applied, and has no weight
	refused 2 "rolled back" lat_bands 4 train_classes 6 weight 1:4=2
	# latency SLOs: the shared parser, the live lat_bands, the kernel
	refused 1 'Illegal "slos": "10ns" is not a time' slos 10ns
	refused 1 'Illegal "slos": must be off or 10us..1s' slos 1ms 9us
	refused 1 'Illegal "slo": must be off or 10us..1s' slo 1:1=2s
	refused 1 'Illegal "slo": "1.5us" is not a whole number of microseconds' slo 1:1=1.5us
	refused 1 'Illegal "slos": 4 given for 3 latency bands' slos 1ms 1ms 1ms 1ms
	refused 1 'duplicate slo for class 1' slo 1:1=1ms 1=2ms
	refused 1 '"slo" needs CLASS=TIME' slo 1ms
	refused 2 "Training classes are served by weight and have no SLO" slo 1:11=1ms
	# the SLO list and 1:1's SLO applied, then 1:12 refused: all undone
	refused 2 "rolled back" slos 3ms 4ms slo_training slo 1:1=1ms 1:12=1ms
	ctl set dev "$DEV" slos 1ms 2ms
	refused 2 "rolled back" slos 5ms slo 1:2=off 1:11=1ms
}

test_errors() {
	fresh_qdisc
	expect_rc 3 ctl set dev "$DEV" weight 1:16=2
	expect_err "class 1:16 does not exist on $DEV"
	expect_rc 1 ctl set dev "$DEV" burst 12qq
	expect_err 'Illegal "burst": "12qq"'
	expect_rc 1 ctl set dev "$DEV" weight 1:11
	expect_rc 1 ctl set dev "$DEV" burst 1mb burst 2mb
	expect_err 'Duplicate "burst"'
	expect_rc 3 ctl set dev "$DEV" slo 1:4=1ms
	expect_err "class 1:4 does not exist on $DEV"
	expect_rc 1 ctl set dev "$DEV" nosuchopt 3
	expect_rc 1 ctl frobnicate
	expect_rc 3 ctl set dev aicnosuch0 burst 1mb
	expect_err 'device "aicnosuch0" does not exist'
	expect_rc 3 ctl show dev aicnosuch0
	expect_rc 3 ctl show dev lo
	expect_err 'device "lo" has no aiclass qdisc'
	expect_rc 3 ctl set dev lo burst 1mb
	expect_err 'device "lo" has no aiclass qdisc'
	expect_rc 0 ctl --help
	grep -q "Exit status" "$TMP/out" || fail "--help lacks the exit codes"
	expect_rc 0 ctl --version
}

test_permission() {
	require_cmd setpriv
	fresh_qdisc
	snapshot "$TMP/before.json"
	expect_rc 4 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$CTL" set dev "$DEV" burst 100kb
	expect_err "permission denied"
	# reading needs no privilege
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$CTL" show dev "$DEV" --interval 0 >/dev/null
	snapshot "$TMP/after.json"
	same_config "$TMP/before.json" "$TMP/after.json"
}

test_watch_tmux() {
	require_cmd tmux
	local sock=aicctl-$$ i
	fresh_qdisc
	tmux -L "$sock" -f /dev/null new-session -d -s w -x 160 -y 50 \
		"$CTL watch dev $DEV --interval 0.5; echo \$? >$TMP/watch.rc; sleep 60"
	defer tmux -L "$sock" kill-server
	# wait for the second frame: rates appear from the first refresh on
	for ((i = 0; i < 40; i++)); do
		sleep 0.5
		ping_some 1
		tmux -L "$sock" capture-pane -p -t w >"$TMP/pane.txt"
		grep -qE '^  1:11 +training .*pps' "$TMP/pane.txt" && break
	done
	cat "$TMP/pane.txt"
	grep -q "aiclassctl watch dev $DEV" "$TMP/pane.txt" || fail "no watch header"
	grep -qE '^  1:1 +latency' "$TMP/pane.txt" || fail "no class table"
	grep -qE '^  1:11 +training .*pps' "$TMP/pane.txt" || fail "no refresh with rates"
	[ "$(grep -c 'aiclassctl watch' "$TMP/pane.txt")" -eq 1 ] ||
		fail "frames scroll instead of redrawing in place"
	tmux -L "$sock" send-keys -t w C-c
	for ((i = 0; i < 20; i++)); do
		[ -s "$TMP/watch.rc" ] && break
		sleep 0.5
	done
	[ "$(cat "$TMP/watch.rc" 2>/dev/null)" = 0 ] || fail "watch did not exit 0 on Ctrl-C"
	tmux -L "$sock" capture-pane -p -t w >"$TMP/after.txt"
	! grep -q "class  kind" "$TMP/after.txt" ||
		fail "the terminal was not restored (table still on the screen)"
}

test_apply_file() {
	fresh_qdisc
	cat >"$TMP/eth.conf" <<EOF
# aiclass for $DEV
dev $DEV
burst 96kb        # latency may run ahead by this much
idle 3ms
weight 1:13=7
EOF
	snapshot "$TMP/before.json"
	ctl apply "$TMP/eth.conf"
	snapshot "$TMP/after.json"
	python3 - "$TMP/before.json" "$TMP/after.json" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))["instances"][0]
a = json.load(open(sys.argv[2]))["instances"][0]
o = a["options"]
assert o["burst"] == 96 * 1024 and o["idle"] == 3000, o
assert o["weights"] == [1, 1, 7, 1], o["weights"]
for k in o:
    assert k in ("burst", "idle", "weights") or o[k] == b["options"][k], k
EOF
	# a bad line names the file and the line, and changes nothing
	printf 'dev %s\nburst 32kb\nfrob 1\n' "$DEV" >"$TMP/bad.conf"
	expect_rc 1 ctl apply "$TMP/bad.conf"
	expect_err "$TMP/bad.conf:3: unknown keyword \"frob\""
	snapshot "$TMP/again.json"
	same_config "$TMP/after.json" "$TMP/again.json"
}

test_apply_create() {
	ip link add "$DEV2" type dummy
	defer ip link del "$DEV2"
	printf 'profile inference\nweight 1:12=3\n' >"$TMP/new.conf"
	expect_rc 3 ctl apply "$TMP/new.conf" dev "$DEV2"
	ctl apply "$TMP/new.conf" dev "$DEV2" --create
	tc qdisc show dev "$DEV2" | tee /dev/stderr | has "qdisc aiclass 1: root" ||
		fail "no aiclass installed"
	ctl show dev "$DEV2" --json --interval 0 >"$TMP/new.json"
	json_get "$TMP/new.json" 'd["instances"][0]["options"]["train_share"]' |
		has -x 5 || fail "preset not applied"
	json_get "$TMP/new.json" 'd["instances"][0]["options"]["weights"]' |
		has -xF "[1, 3, 1, 1]" || fail "weight not applied"
}

test_profiles() {
	local p want
	fresh_qdisc
	for p in training inference mixed; do
		ctl profile "$p" dev "$DEV"
		snapshot "$TMP/$p.json"
		case $p in
		training) want="50 16384 1000" ;;
		inference) want="5 262144 500" ;;
		mixed) want="10 65536 1000" ;;
		esac
		got=$(json_get "$TMP/$p.json" '" ".join(str(d["instances"][0]["options"][k]) for k in ("train_share", "burst", "ce_threshold"))')
		echo "$p: train_share burst ce_threshold = $got"
		[ "$got" = "$want" ] || fail "profile $p: got $got, want $want"
		# the printed preset is a config file that means the same
		ctl profile "$p" --print >"$TMP/$p.conf"
		ctl apply "$TMP/$p.conf" dev "$DEV"
		snapshot "$TMP/$p.again.json"
		same_config "$TMP/$p.json" "$TMP/$p.again.json"
	done
	expect_rc 1 ctl profile nosuch dev "$DEV"
}

# Under mq, one aiclass per TX queue: show lists each, set changes every
# instance of the device or the one "handle" names, all or nothing.
test_mq_instances() {
	local mq=aicmq0
	ip link add "$mq" numtxqueues 2 type dummy
	defer ip link del "$mq"
	tc qdisc add dev "$mq" root handle 1: mq
	tc qdisc add dev "$mq" parent 1:1 handle 10: aiclass
	tc qdisc add dev "$mq" parent 1:2 handle 20: aiclass
	ctl show dev "$mq" --json --interval 0 >"$TMP/mq0.json"
	json_get "$TMP/mq0.json" '[(i["handle"], i["parent"], len(i["classes"])) for i in d["instances"]]' |
		tee /dev/stderr | has -xF "[('10:', '1:1', 7), ('20:', '1:2', 7)]" ||
		fail "show does not list both instances with their classes"
	ctl set dev "$mq" burst 100kb weight :12=3
	ctl set dev "$mq" handle 20: train_share 30
	expect_rc 3 ctl set dev "$mq" weight 1:12=3
	expect_err "does not belong to aiclass 10:"
	ctl show dev "$mq" --json --interval 0 >"$TMP/mq1.json"
	expect_rc 2 ctl set dev "$mq" burst 200kb weight :11=5 :1=3
	expect_err "rolled back"
	ctl show dev "$mq" --json --interval 0 >"$TMP/mq2.json"
	python3 - "$TMP/mq1.json" "$TMP/mq2.json" <<'PY'
import json, sys
a, b = (json.load(open(f))["instances"] for f in sys.argv[1:3])
got = [(i["handle"], i["options"]["burst"], i["options"]["train_share"],
        i["options"]["weights"]) for i in a]
want = [("10:", 102400, 10, [1, 3, 1, 1]), ("20:", 102400, 30, [1, 3, 1, 1])]
assert got == want, got
assert [i["options"] for i in a] == [i["options"] for i in b], "rollback"
PY
}

test_valgrind() {
	require_cmd valgrind
	local vg=(valgrind -q --error-exitcode=99 --leak-check=full
		--errors-for-leak-kinds=definite,indirect
		--show-leak-kinds=definite,indirect)
	fresh_qdisc
	ping_some 2
	expect_rc 0 "${vg[@]}" "$CTL" show dev "$DEV" --interval 0.1
	expect_rc 0 "${vg[@]}" "$CTL" show --json --interval 0.1
	expect_rc 0 "${vg[@]}" "$CTL" set dev "$DEV" burst 80kb weight 1:12=2
	expect_rc 1 "${vg[@]}" "$CTL" set dev "$DEV" burst 90kb weight 1:11=0
	expect_rc 2 "${vg[@]}" "$CTL" set dev "$DEV" burst 90kb weight 1:11=3 1:1=2
	expect_err "rolled back"
	expect_rc 3 "${vg[@]}" "$CTL" set dev lo burst 90kb
	expect_rc 0 "${vg[@]}" "$CTL" watch dev "$DEV" --count 2 --interval 0.2
	expect_rc 0 "${vg[@]}" "$CTL" metrics
}


# ------------------------------------------------- one grammar, one table

# tc_opts TC DEV: the options text of "TC qdisc show", as add reads it.
tc_opts() {
	"$1" qdisc show dev "$2" | sed -n 's/^qdisc aiclass [0-9a-f]*: root refcnt [0-9]* //p'
}

# ctl_opts DEV: the options line of "aiclassctl show".
ctl_opts() {
	ctl show dev "$1" --interval 0 | sed -n '2s/^  //p'
}

# What the module accepts beyond the defaults, each value of every option
# the table knows: off forms, units, class minors, maps.
ROUNDTRIP_CONFIGS=(
	""
	"lat_bands 5 train_classes 7 weights 9 8 7 6 5 4 3 burst 1500kb train_share 33 thresholds 1000 3k 9999 1mb elephant 3mb idle 1500us flows 4096 limit 20000 memory_limit 100mb ce_threshold 2500us rate 12345678bit roce_port 6000 priomap 1 5 11 17 auto 2 1:3 1:4 auto auto 12 13 14 15 16 1:11 default_class 1:13 lat_limit 77 quantum 9001"
	"lat_bands 1 train_classes 16 burst 64mb train_share 0 elephant 1gb idle 10s flows 16 limit 16 memory_limit 64kb ce_threshold 0 rate 0 noroce default_class 20 lat_limit 1 quantum 256"
	"ce_threshold 10s rate 100gbit roce_port 65535 priomap auto 1"
)
ROUNDTRIP_NEW_CONFIGS=(
	"target 10us interval 100us noecn forget off dscpmap 26:11,46:1,48:1 split_gso"
	"target 1s interval 10s ecn forget 3600s dscpmap ef:2,cs1:11,0:3 no_split_gso rate 8kbit"
)
# The latency SLOs (issue 25), for a module that has them.
ROUNDTRIP_SLO_CONFIGS=(
	"lat_bands 4 slos 10us off 1s 2500us slo_training"
	"slos 1ms noslo_training"
	"lat_bands 8 slos 1ms 2ms 3ms 4ms 5ms 6ms 7ms 1000000us"
)

# roundtrip TC CONFIG: TC adds CONFIG on $DEV; what TC shows, aiclassctl set
# applies to $RT2; what aiclassctl shows, TC applies to $RT3; all three
# configurations are the same.
roundtrip() {
	local tc=$1 cfg=$2 a b d
	# fresh qdiscs: a replace would change the old one, keeping the rest
	# of an earlier configuration
	for d in "$DEV" "$RT2" "$RT3"; do
		tc qdisc del dev "$d" root 2>/dev/null || true
	done
	# shellcheck disable=SC2086
	"$tc" qdisc add dev "$DEV" root handle 1: aiclass $cfg ||
		fail "$tc refused: $cfg"
	a=$(tc_opts "$tc" "$DEV")
	echo "$tc shows: $a"
	tc qdisc add dev "$RT2" root handle 1: aiclass
	# shellcheck disable=SC2086
	ctl set dev "$RT2" $a || fail "aiclassctl set refused what $tc printed"
	b=$(ctl_opts "$RT2")
	echo "aiclassctl shows: $b"
	# shellcheck disable=SC2086
	"$tc" qdisc add dev "$RT3" root handle 1: aiclass $b ||
		fail "$tc refused what aiclassctl printed"
	# the options as aiclassctl -j reads them on the three devices, and
	# as tc -j prints them: the same keys and raw values, compared in one
	# python (a start of python3 costs about 2 s of TCG guest time)
	for d in "$DEV" "$RT2" "$RT3"; do
		ctl -j show dev "$d" --interval 0 >"$TMP/rt-$d.json"
	done
	"$tc" -j qdisc show dev "$DEV" >"$TMP/rt-tc.json"
	python3 - "$TMP"/rt-{"$DEV","$RT2","$RT3",tc}.json <<'EOF' ||
import json, os, sys
sys.path.insert(0, os.environ["TOP"] + "/selftests")
from tcjson import ctl_options, tc_options
a, b, c = (json.dumps(ctl_options(p), sort_keys=True) for p in sys.argv[1:4])
t = json.dumps(tc_options(sys.argv[4]), sort_keys=True)
bad = 0
for what, x, y in (("tc -> aiclassctl", a, b), ("aiclassctl -> tc", b, c),
                   ("tc -j against aiclassctl -j", t, a)):
    if x != y:
        print("%s: %s != %s" % (what, x, y))
        bad = 1
sys.exit(bad)
EOF
		fail "the options differ after the round trip"
	[ "$a" = "$(tc_opts "$tc" "$RT3")" ] || fail "tc text differs after the round trip"
	[ "$b" = "$(ctl_opts "$DEV")" ] || fail "aiclassctl text differs after the round trip"
}

# Is option NAME one the module knows? (It refuses unknown attributes.)
# Asked of a fresh qdisc, so that no earlier option can be why it refuses.
module_knows() {
	tc qdisc del dev "$RT3" root 2>/dev/null || true
	tc qdisc add dev "$RT3" root handle 1: aiclass "$@" 2>/dev/null
}

test_roundtrip() {
	local tc cfg tcs=(tc) n=0
	local tc615=${AICLASS_TC615:-/var/cache/aiclass-tc615/root/sbin/tc}
	[ -x "$tc615" ] && tcs+=("$tc615")
	for tc in "${tcs[@]}"; do
		for cfg in "${ROUNDTRIP_CONFIGS[@]}"; do
			roundtrip "$tc" "$cfg"
			n=$((n + 1))
		done
		for cfg in "${ROUNDTRIP_NEW_CONFIGS[@]}"; do
			if ! module_knows target 5ms; then
				echo "this module has no CoDel options yet: not round-tripped: $cfg"
				continue
			fi
			roundtrip "$tc" "$cfg"
			n=$((n + 1))
		done
		for cfg in "${ROUNDTRIP_SLO_CONFIGS[@]}"; do
			if ! module_knows slos 1ms; then
				echo "this module has no latency SLOs yet: not round-tripped: $cfg"
				continue
			fi
			roundtrip "$tc" "$cfg"
			n=$((n + 1))
		done
	done
	echo "$n configurations round-tripped with ${tcs[*]}"
}

# The table of tools/lib/aiclass against the module's policy: every scalar
# option's min and max are accepted, min-1 and max+1 refused (sent raw,
# past both parsers, each to a fresh qdisc), and a fresh qdisc dumps the
# table's defaults.
test_table_matches_module() {
	ctl -j options >"$TMP/table.json"
	fresh_qdisc "$RT3"
	ctl -j show dev "$RT3" --interval 0 >"$TMP/defaults.json"
	python3 - "$TMP/table.json" "$TMP/defaults.json" "$RT3" <<'PY'
import json, os, socket, struct, sys
sys.path.insert(0, os.environ["TOP"] + "/selftests")
from tcjson import ctl_options
table = json.load(open(sys.argv[1]))
defaults = ctl_options(sys.argv[2])
ifindex = socket.if_nametoindex(sys.argv[3])
sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
sk.bind((0, 0))
seq = 0

def attr(t, payload):
    n = 4 + len(payload)
    return struct.pack("HH", n, t) + payload + b"\0" * (-n % 4)

def request(kind, flags, body):
    """One rtnetlink request: the errno."""
    global seq
    seq += 1
    hdr = struct.pack("IHHII", 16 + len(body), kind, 0x1 | 0x4 | flags, seq, 0)
    sk.send(hdr + body)
    while True:
        data = sk.recv(65536)
        n, t, _, s, _ = struct.unpack_from("IHHII", data, 0)
        if t == 2 and s == seq:
            return -struct.unpack_from("i", data, 16)[0]

def send(opts):
    """A fresh root aiclass 1: with opts (RTM_DELQDISC of the old one, then
    RTM_NEWQDISC create/excl), so that each value meets the defaults and
    nothing an earlier value left: the errno of the create."""
    tcm = struct.pack("BxxxiIII", 0, ifindex, 0, 0xffffffff, 0)
    request(37, 0, tcm)
    body = struct.pack("BxxxiIII", 0, ifindex, 0x10000, 0xffffffff, 0)
    body += attr(1, b"aiclass\0") + attr(2 | 0x8000, opts)
    return request(36, 0x400 | 0x200, body)

fmt = {1: "B", 2: "H", 4: "I", 8: "Q"}
errors, checked = [], 0
TRAIN_CLASSES = 2
by_name = {o["name"]: o for o in table}
def other(name, key):
    """The attribute of option name at its table min or max."""
    o = by_name[name]
    return attr(o["attr"], struct.pack(fmt[o["width"]], o[key]))
for o in table:
    w = o["width"]
    if o["name"] in ("weights", "thresholds", "priomap", "dscpmap", "slos"):
        continue
    # default_class must name an existing class: all 16 of them; target
    # must stay below interval: the widest interval for target, the
    # smallest target for interval, so that only the policy refuses
    extra = b""
    if o["name"] == "default_class":
        extra = attr(TRAIN_CLASSES, struct.pack("B", 16))
    elif o["name"] == "target":
        extra = other("interval", "max")
    elif o["name"] == "interval":
        extra = other("target", "min")
    def val(v):
        return extra + attr(o["attr"], struct.pack(fmt[w], v))
    cases = [(o["min"], True)]
    if w < 8:
        cases.append((o["max"], True))
        if o["max"] + 1 < (1 << (8 * w)):
            cases.append((o["max"] + 1, False))
    # 0 is off where the option has an off form
    if o["min"] > 0 and not (o["min"] == 1 and (o["off"] or o["neg"])):
        cases.append((o["min"] - 1, False))
    for v, ok in cases:
        err = send(val(v))
        checked += 1
        if (err == 0) != ok:
            errors.append("%s %d: the module %s it, the table says %s" %
                          (o["name"], v, "accepts" if err == 0 else "refuses (errno %d)" % err,
                           "accept" if ok else "refuse"))
    if o["default"] is not None and o["name"] in defaults and defaults[o["name"]] != o["default"]:
        errors.append("%s: the module's default is %r, the table's %r" %
                      (o["name"], defaults[o["name"]], o["default"]))
    if o["default"] is not None and o["name"] not in defaults:
        errors.append("%s: the module does not dump it" % o["name"])
print("%d values of %d options checked against the module" % (checked, len(table)))
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
PY
}

# --help, the man page and the code list the same options and commands.
test_help_matches_man() {
	local man=$TOP/tools/aiclassctl/aiclassctl.8
	ctl --help >"$TMP/help.txt"
	python3 - "$TMP/help.txt" "$man" <<'PY'
import re, subprocess, sys
help_text = open(sys.argv[1]).read()
man = open(sys.argv[2]).read()
# words of the option table: the lines after "Options of set", up to
# the line of units
opts = set()
for line in help_text.split("Options of set")[1].split("  SIZE:")[0].splitlines()[1:]:
    m = re.match(r"  (\w+)(?: (?!\|)\S+)?(?: \| (\w+))?\s", line)
    if m:
        opts.update(w for w in m.groups() if w)
flags = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", help_text))
# the man page: the tag line of every .TP in OPTIONS (keyword, and the
# \fBnegation\fR); the flags of its SYNOPSIS
sect = man.split(".SH OPTIONS")[1].split(".SH ")[0]
man_opts = set()
for tag in re.findall(r"^\.TP\n(.*)$", sect, re.M):
    m = re.match(r"\.B[IR]? +\"?(\w+)", tag)
    if m:
        man_opts.add(m.group(1))
    man_opts.update(re.findall(r"\\fB(\w+)\\fR", tag))
syn = man.split(".SH SYNOPSIS")[1].split(".SH ")[0]
man_flags = set(f.replace("\\-", "-") for f in re.findall(r"(?<![\w-])((?:\\-){1,2}[a-zA-Z][\w-]*)", syn))
errors = []
for w in sorted(opts - man_opts):
    errors.append("option %s: in --help, not in the man page's OPTIONS" % w)
for w in sorted(man_opts - opts):
    errors.append("option %s: in the man page's OPTIONS, not in --help" % w)
for f in sorted(flags ^ man_flags):
    errors.append("flag %s: only in %s" % (f, "--help" if f in flags else "the man page"))
print("%d options, %d flags compared" % (len(opts), len(flags)))
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
PY
	local c
	for c in show set watch metrics apply profile options help; do
		expect_rc 0 ctl help "$c"
		grep -q "^Usage: aiclassctl .*$c" "$TMP/out" || fail "help $c prints no usage"
		[ "$c" = help ] || expect_rc 0 ctl "$c" help
	done
	expect_rc 1 ctl help nosuch
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "an error is one line"
}

# The parser: profiles give the documented maps, compact JSON by default.
test_profiles_parse() {
	local got
	# (no /dev/stdin in the guest: through a file)
	ctl -j profile roce --check >"$TMP/roce.json"
	got=$(json_get "$TMP/roce.json" 'sorted((i, c) for i, c in enumerate(d["options"]["dscpmap"]) if c)')
	check_eq "$got" "[(26, 17), (46, 1), (48, 1)]" "roce dscpmap (DSCP, minor)"
	ctl -j profile diffserv --check >"$TMP/diffserv.json"
	got=$(json_get "$TMP/diffserv.json" 'sorted((i, c) for i, c in enumerate(d["options"]["dscpmap"]) if c)')
	check_eq "$got" "[(1, 17), (8, 17), (10, 3), (12, 3), (14, 3), (16, 2), (18, 2), (20, 2), (22, 2), (24, 2), (26, 2), (28, 2), (30, 2), (32, 1), (34, 2), (36, 2), (38, 2), (40, 1), (44, 1), (46, 1), (48, 1), (56, 1)]" "diffserv dscpmap"
	[ "$(ctl -j set --check burst 1mb | wc -l)" -eq 1 ] || fail "-j is not compact"
	[ "$(ctl -j -p set --check burst 1mb | wc -l)" -gt 1 ] || fail "-p does not indent"
	expect_rc 1 ctl set --check limit 10240p
	expect_err 'Illegal "limit"'
	expect_rc 1 ctl set --check priomap 0
	expect_rc 1 ctl set --check dscpmap 64:1
	expect_rc 1 ctl set --check dscpmap 26:9
}

# Classes by minor alone, whatever handle the kernel gave the qdisc.
test_minor_alone() {
	tc qdisc del dev "$DEV" root 2>/dev/null || true
	tc qdisc add dev "$DEV" root aiclass
	ctl set dev "$DEV" 12=5 weight :13=3
	ctl -j show dev "$DEV" --interval 0 >"$TMP/m.json"
	got=$(json_get "$TMP/m.json" 'd["instances"][0]["options"]["weights"]')
	check_eq "$got" "[1, 5, 3, 1]" "weights set by minor on handle $(json_get "$TMP/m.json" 'd["instances"][0]["handle"]')"
	# a major of 1: is not this qdisc's (issue 26, 3)
	expect_rc 1 ctl set dev "$DEV" default_class 1:12
	expect_err 'is not a class of qdisc'
}

# Issue 26, 3: no silent conversions.  ce_threshold 10ns once became off,
# priomap 2:1 on aiclass 1: became 1 (likewise dscpmap, default_class).
test_no_silent_conversion() {
	fresh_qdisc
	snapshot "$TMP/nsc0.json"
	expect_rc 1 ctl set dev "$DEV" ce_threshold 10ns
	expect_err 'Illegal "ce_threshold": "10ns" is not a time'
	expect_rc 1 ctl set --check ce_threshold 1.5us
	expect_err 'Illegal "ce_threshold": "1.5us" is not a whole number of microseconds'
	expect_rc 1 ctl set --check rate 1bit
	expect_err 'Illegal "rate": "1bit" is below 8bit'
	expect_rc 1 ctl set dev "$DEV" priomap 2:1
	expect_err "$DEV: Illegal \"priomap\": \"2:1\" is not a class of qdisc 1:"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "an error is one line"
	expect_rc 1 ctl set dev "$DEV" dscpmap 26:2:11
	expect_err 'Illegal "dscpmap": "2:11" is not a class of qdisc 1:'
	expect_rc 1 ctl set dev "$DEV" handle 1: default_class 2:12
	expect_err 'Illegal "default_class": "2:12" is not a class of qdisc 1:'
	expect_rc 1 ctl set --check priomap 1:1 default_class 2:12
	expect_err 'name two qdiscs'
	snapshot "$TMP/nsc1.json"
	same_config "$TMP/nsc0.json" "$TMP/nsc1.json"
	# the qdisc's own major, and minors alone, are taken
	ctl set dev "$DEV" priomap 1:1 auto 12 dscpmap 26:1:13 default_class 1:12 \
		ce_threshold 1.1ms
	snapshot "$TMP/nsc2.json"
	json_get "$TMP/nsc2.json" '[d["instances"][0]["options"][k] for k in ("ce_threshold", "default_class")] + [d["instances"][0]["options"]["priomap"][:3], d["instances"][0]["options"]["dscpmap"][26]]' |
		has -xF "[1100, 18, [1, 0, 18], 19]" || fail "own major not taken as is"
	# --create makes aiclass 1:: another major installs nothing
	ip link add "$DEV2" type dummy
	defer ip link del "$DEV2"
	printf 'default_class 2:12\n' >"$TMP/major.conf"
	expect_rc 1 ctl apply "$TMP/major.conf" dev "$DEV2" --create
	expect_err 'Illegal "default_class": "2:12" is not a class of qdisc 1:'
	tc qdisc show dev "$DEV2" | has aiclass && fail "--create installed aiclass"
	true
}

# Issue 26, 7: -p implies JSON, dev without DEV, help --help, -n NETNS.
test_cli_habits() {
	fresh_qdisc
	expect_rc 0 ctl -p show dev "$DEV" --interval 0
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/out" ||
		fail "-p printed no JSON"
	[ "$(wc -l <"$TMP/out")" -gt 1 ] || fail "-p does not indent"
	expect_rc 0 ctl show dev "$DEV" -p --interval 0
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/out" ||
		fail "show ... -p printed no JSON"
	local c
	for c in show watch set; do
		expect_rc 1 ctl "$c" dev
		expect_err "\"dev\" needs a value"
		[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$c dev: an error is one line"
	done
	for c in --help -h; do
		expect_rc 0 ctl help "$c"
		grep -q '^Usage: aiclassctl .*help \[COMMAND\]' "$TMP/out" ||
			fail "help $c prints no usage of help"
	done
	ns_create aicctlns
	ip -n aicctlns link add aicns0 type dummy
	ip -n aicctlns link set aicns0 up
	tc -n aicctlns qdisc add dev aicns0 root handle 1: aiclass
	expect_rc 0 ctl -n aicctlns -j show dev aicns0 --interval 0
	json_get "$TMP/out" 'd["instances"][0]["dev"]' | has -x aicns0 ||
		fail "-n: not the namespace's aiclass"
	expect_rc 0 ctl --netns aicctlns set dev aicns0 burst 96kb
	tc -n aicctlns qdisc show dev aicns0 | has ' burst 96Kb ' ||
		fail "--netns set changed nothing there"
	expect_rc 3 ctl show dev aicns0
	expect_rc 3 ctl -n aicnosuchns show
	expect_err 'cannot open network namespace "aicnosuchns"'
	expect_rc 1 ctl -n
	expect_rc 1 ctl -n ../x show
}

# Issue 26, 4: every option (with its default) and every counter of the
# shared table in both man pages.
test_man_pages_match_table() {
	python3 "$TOP/selftests/mancheck.py" "$CTL" "$TOP"
	# the example configuration file of aiclassctl.8 applies as it is
	# (it named no device), with our device for eth0
	fresh_qdisc
	sed -n '/^# \/etc\/aiclass\/eth0.conf$/,/^\.fi$/p' \
		"$TOP/tools/aiclassctl/aiclassctl.8" | sed '$d' |
		sed "s/eth0/$DEV/" >"$TMP/man.conf"
	cat "$TMP/man.conf"
	[ -s "$TMP/man.conf" ] || fail "no example configuration in aiclassctl.8"
	expect_rc 0 ctl apply "$TMP/man.conf"
	ctl -j show dev "$DEV" --interval 0 >"$TMP/man.json"
	json_get "$TMP/man.json" '[d["instances"][0]["options"][k] for k in ("burst", "ce_threshold")]' |
		has -xF "[98304, 500]" || fail "the example was not applied"
}

# Issue 26: aiclassctl metrics on a live qdisc that has seen traffic:
# valid for promtool, every counter of show --json once with its value,
# names and labels as aiclassctl.8 says, each series once across several
# instances, and the man page's textfile-collector line writes the file.
test_metrics() {
	local mq=aicmq1 man=$TOP/tools/aiclassctl/aiclassctl.8
	command -v promtool >/dev/null ||
		skip "no promtool (Debian's prometheus package; make testdeps)"
	fresh_qdisc
	# a band with an SLO, for its counters (on a module that has them)
	if module_knows slos 1ms; then
		ctl set dev "$DEV" slo 1:1=5ms
	fi
	ping_some 5
	ip link add "$mq" numtxqueues 2 type dummy
	defer ip link del "$mq"
	tc qdisc add dev "$mq" root handle 1: mq
	tc qdisc add dev "$mq" parent 1:1 handle 10: aiclass
	tc qdisc add dev "$mq" parent 1:2 handle 20: aiclass
	snapshot "$TMP/m.json"
	expect_rc 0 ctl metrics dev "$DEV"
	cp "$TMP/out" "$TMP/m.prom"
	grep -E '^aiclass_(qdisc_packets|class_sojourn_max_seconds)' "$TMP/m.prom"
	promtool check metrics <"$TMP/m.prom" ||
		fail "promtool check metrics refused the output"
	python3 - "$TMP/m.prom" "$TMP/m.json" "$man" <<'PY'
import json, re, sys
prom, doc, man = (open(f).read() for f in sys.argv[1:4])
inst = json.loads(doc)["instances"][0]
man = man.split("\n.SH METRICS\n")[1].split("\n.SH ")[0]
errors, types, samples = [], {}, []
for line in prom.splitlines():
    m = re.match(r"# TYPE (\w+) (\w+)$", line)
    if m:
        types[m.group(1)] = m.group(2)
        continue
    if line.startswith("#"):
        continue
    m = re.match(r"(\w+)\{(.*)\} (\S+)$", line)
    if not m:
        errors.append("not a sample: %r" % line)
        continue
    labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
    samples.append((m.group(1), labels, float(m.group(3))))
    if m.group(1) not in types:
        errors.append("%s: no TYPE before its sample" % m.group(1))

def key(name, labels):
    """the JSON key of a sample's counter"""
    n = re.sub(r"^aiclass_(qdisc|class)_", "", name)
    if n == "classified_packets_total":
        return "cls_" + labels["route"]
    if n == "drops_by_reason_total":
        r = labels["reason"]
        return r if r == "stolen" else "drop_" + r
    if n == "slo_packets_total":
        return "slo_" + labels["result"]
    if n == "slo_downgrade_ratio":
        return "slo_prob"
    n = {"backlog_bytes": "backlog", "backlog_packets": "qlen"}.get(n, n)
    return re.sub(r"(_total|_bytes|_seconds)$", "", n)

def check(scope, obj, labels_want, want_n):
    got = [(n, l, v) for n, l, v in samples if n.startswith("aiclass_%s_" % scope)
           and all(l.get(k) == v for k, v in labels_want.items())]
    keys = []
    for n, l, v in got:
        k = key(n, l)
        keys.append(k)
        extra = set(l) - set(labels_want) - {"route", "reason", "result"}
        if extra:
            errors.append("%s: labels %s" % (n, sorted(extra)))
        if (types.get(n) == "counter") != n.endswith("_total"):
            errors.append("%s: TYPE %s" % (n, types.get(n)))
        if n not in man:
            errors.append("%s: not in aiclassctl.8 METRICS" % n)
        want = obj.get(k)
        if want is None:
            errors.append("%s: no JSON key %s" % (n, k))
        elif n.endswith(("_slo_seconds", "_ratio")):
            # microseconds, parts per million in JSON
            if abs(v * 1e6 - want) > 0.5:
                errors.append("%s %s: %r, JSON %r" % (n, labels_want, v, want))
        elif n.endswith("_seconds") and abs(v * 1e9 - want) > 0.5:
            errors.append("%s %s: %r s, JSON %r ns" % (n, labels_want, v, want))
        elif not n.endswith("_seconds") and v != want:
            errors.append("%s %s: %r, JSON %r" % (n, labels_want, v, want))
    dup = sorted(set(k for k in keys if keys.count(k) > 1))
    if dup:
        errors.append("%s %s: more than once: %s" % (scope, labels_want, dup))
    if len(got) != want_n:
        errors.append("%s %s: %d samples for %d JSON counters" %
                      (scope, labels_want, len(got), want_n))

st = inst["stats"]
check("qdisc", st, {"device": inst["dev"], "handle": inst["handle"]},
      sum(1 for k, v in st.items() if v is not None))
for c in inst["classes"]:
    check("class", c, {"device": inst["dev"], "class": c["class"],
                       "kind": c["kind"]},
          sum(1 for k, v in c.items() if v is not None) - 2)
pk = [v for n, l, v in samples if n == "aiclass_qdisc_packets_total"]
if not pk or pk[0] < 5:
    errors.append("aiclass_qdisc_packets_total %r: the pings are not counted" % pk)
print("%d samples of %d families checked" % (len(samples), len(types)))
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
PY
	# every device: ours and both instances under mq, each series once
	expect_rc 0 ctl metrics
	promtool check metrics <"$TMP/out" || fail "promtool: all devices"
	[ "$(grep -cE "^aiclass_qdisc_packets_total\{device=\"($DEV|$mq)\"" "$TMP/out")" -eq 3 ] ||
		fail "not three instances"
	grep -v '^#' "$TMP/out" | sed 's/ [^ ]*$//' | sort | uniq -d >"$TMP/dup"
	[ ! -s "$TMP/dup" ] || fail "series twice: $(head -3 "$TMP/dup")"
	expect_rc 0 ctl metrics dev "$mq" handle 20:
	grep -q 'handle="20:"' "$TMP/out" && ! grep -q 'handle="10:"\|class="10:' "$TMP/out" ||
		fail "handle 20: does not select one instance"
	expect_rc 3 ctl metrics dev nosuch0
	expect_rc 1 ctl -j metrics
	expect_rc 1 ctl metrics --interval 1
	expect_rc 0 ctl help metrics
	# the cron line of aiclassctl.8, into a textfile directory of ours
	mkdir "$TMP/textfile"
	sed -n '/^\.\\" selftests\/aiclassctl.sh runs the next line$/{n;p}' "$man" |
		sed 's/^\* \* \* \* \* root //; s/\\-/-/g' |
		sed "s|/var/lib/prometheus/node-exporter|$TMP/textfile|; s|/usr/sbin/aiclassctl|$CTL|" \
		>"$TMP/cron.sh"
	cat "$TMP/cron.sh"
	grep -q "$TMP/textfile" "$TMP/cron.sh" || fail "no cron line in aiclassctl.8"
	sh "$TMP/cron.sh"
	[ "$(ls "$TMP/textfile")" = aiclass.prom ] || fail "textfile: $(ls "$TMP/textfile")"
	promtool check metrics <"$TMP/textfile/aiclass.prom" ||
		fail "promtool: the textfile"
}

# ------------------------------------------------------------------ main

[ -x "$CTL" ] || skip "tools/aiclassctl/aiclassctl is not built (make -C tools/aiclassctl)"
aiclass_load
defer rm -rf "$TMP"
ip link add "$DEV" type dummy || ktap_bail "cannot add a dummy device"
defer ip link del "$DEV"
sysctl -qw "net.ipv6.conf.$DEV.disable_ipv6=1"
ip link set "$DEV" up
ip addr add 10.77.0.1/24 dev "$DEV"
ip neigh add 10.77.0.2 lladdr 02:00:00:00:00:02 dev "$DEV" nud permanent
for d in "$RT2" "$RT3"; do
	ip link add "$d" type dummy || ktap_bail "cannot add a dummy device"
	defer ip link del "$d"
	ip link set "$d" up
done

ktap_plan 23
run_case "show --json is valid and matches tc -s -j" test_show_json_matches_tc
run_case "show prints config, stats and the class table" test_show_text
run_case "set changes exactly the options it names" test_set_exactly
run_case "set weight changes only the named classes" test_set_weights
run_case "set slos, slo_training and slo CLASS=TIME; show's SLO table" test_set_slos
run_case "refused changes leave the config as it was" test_refusals
run_case "missing device, no aiclass, unknown class, bad values" test_errors
run_case "set without CAP_NET_ADMIN exits 4" test_permission
run_case "watch redraws in place under tmux, Ctrl-C exits" test_watch_tmux
run_case "apply a config file" test_apply_file
run_case "apply --create installs aiclass" test_apply_create
run_case "profiles training, inference, mixed" test_profiles
run_case "several instances under mq" test_mq_instances
run_case "show, set, watch and metrics are clean under valgrind" test_valgrind
run_case "what tc prints aiclassctl reads, and back, same config" test_roundtrip
run_case "the option table's ranges and defaults are the module's" test_table_matches_module
run_case "--help, help COMMAND and the man page agree" test_help_matches_man
run_case "profiles roce and diffserv parse to their dscpmaps" test_profiles_parse
run_case "class minors alone on a qdisc without handle 1:" test_minor_alone
run_case "10ns, 1.5us, rate 1bit and a wrong major are refused, not converted" test_no_silent_conversion
run_case "-p is JSON, dev needs DEV, help --help, -n NETNS" test_cli_habits
run_case "both man pages list every option, default and counter of the table" test_man_pages_match_table
run_case "metrics: Prometheus text of every counter, valid for promtool" test_metrics
ktap_finish
