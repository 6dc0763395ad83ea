#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tools/demo.sh - what `make demo` shows: AI inference responses of many
# packets beside saturating training at one shaped bottleneck, through
# fq_codel, cake and aiclass in the same boot: the inference RPCs' latency
# beside its physical limit, and what training pays for it (goodput, its
# TCP flows' RTT, aiclass's class sojourn).
#
# Runs inside the test bed; on the host it boots it in deterministic mode
# (tools/vm/run -D: guest time is the instruction count, one vCPU), so the
# numbers repeat from run to run (AICLASS_VM_DETERMINISTIC=0: plain TCG).
# The dumbbell of selftests/lib.sh with GSO/TSO on, TCP cubic without ECN,
# HTB at $AICLASS_DEMO_RATE_MBIT on the router's egress with the qdisc
# under test as its leaf, 5 ms back to the sender.
#   training:  4 TCP bulk streams (iperf3 -P 4) + a UDP elephant to port
#              4791 (RoCEv2's port) at a quarter of the link
#   inference: RPCs whose responses cross the bottleneck (tools/bench/rpc.py,
#              Poisson, 10 a second, one at a time, responses of 256 B to
#              128 KB, each timed from request to last byte), and a small
#              ping-pong (sockperf, 200 B, 50 a second)
# First the inference load alone (its idle latency), then, per qdisc, 5 s
# of training to fill the queues and 23 s counted with the probes.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "${AICLASS_VM:-}" ]; then
	exec "$top/tools/vm/run" -D -t 600 -- tools/demo.sh "$@"
fi
# shellcheck source=../selftests/lib.sh
. "$top/selftests/lib.sh"
TOOL=demo
# shellcheck source=bench/lib.sh
. "$top/tools/bench/lib.sh"

RATE_MBIT=${AICLASS_DEMO_RATE_MBIT:-40}
SECS=${AICLASS_DEMO_SECONDS:-30}
IDLE_SECS=15
UDP_MBIT=$((RATE_MBIT / 4))
# Responses up to 128 KB: aiclass's default elephant threshold is 256 KB,
# and a response past it is training by design (and remembered so).
SIZES=256,1024,4096,16384,65536,131072
RPC_PORT=7000
PROBE_NICE="nice -n -20"
MTU_WIRE=1514	# one full-size packet on the wire (payload 1448 + headers 66)
out=/tmp/aiclass-demo
rm -rf "$out"
mkdir -p "$out"

need_aiclass
need_cmds iperf3 sockperf python3

dumbbell_setup -r "${RATE_MBIT}mbit" -d 5ms || die "dumbbell setup failed"
tcp_plain "$SND" "$RCV"
for dev in "$SND:$SND_IF" "$RTR:$RTR_IN" "$RTR:$RTR_OUT" "$RCV:$RCV_IF"; do
	ns_exec "${dev%%:*}" ethtool -K "${dev#*:}" gso on tso on gro on >/dev/null 2>&1 || true
done
start_server "$RCV" 5201 tcp iperf3 -s -p 5201
start_server "$RCV" 4791 tcp iperf3 -s -p 4791
# shellcheck disable=SC2086
start_server "$RCV" 11111 tcp $PROBE_NICE sockperf server --tcp -i "$RCV_IP" -p 11111
# shellcheck disable=SC2086
start_server "$SND" $RPC_PORT tcp $PROBE_NICE python3 "$top/tools/bench/rpc.py" server --port $RPC_PORT

# cpu_ticks: "busy total" jiffies of the guest.
cpu_ticks() {
	awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i
		print t - $5 - $6, t }' /proc/stat
}

# probes SECS TAG: the RPCs and the ping-pong for SECS s, into $out/TAG.*;
# the guest's CPU use over them in $out/TAG.cpu.
probes() {
	local secs=$1 tag=$2 ping c0
	c0=$(cpu_ticks)
	# shellcheck disable=SC2086
	ns_exec "$SND" $PROBE_NICE sockperf ping-pong --tcp -i "$RCV_IP" -p 11111 -m 200 \
		--mps 50 --full-rtt -t "$secs" >"$out/$tag.ping" 2>&1 &
	ping=$!
	# shellcheck disable=SC2086
	ns_exec "$RCV" $PROBE_NICE python3 "$top/tools/bench/rpc.py" client --dst "$SND_IP" \
		--port $RPC_PORT --duration "$secs" --rate 10 --burst 1 --conns 16 \
		--sizes $SIZES --seed 3 --out "$out/$tag.rpc.json" ||
		echo "demo: RPC client failed ($tag)" >&2
	wait "$ping" || echo "demo: sockperf failed ($tag)" >&2
	echo "$c0 $(cpu_ticks)" | awk '{ printf "%.0f %%\n", 100 * ($3 - $1) / ($4 - $2) }' \
		>"$out/$tag.cpu"
}

# run_load KIND ARGS...: training and inference together through KIND;
# results in $out/KIND.*.
run_load() {
	local kind=$1 tcp udp smp
	shift
	echo "demo: ${SECS}s of training + inference through $* at ${RATE_MBIT} Mbit/s"
	dut_qdisc "$@" || die "cannot install $* on the bottleneck"
	ns_exec "$SND" iperf3 -c "$RCV_IP" -p 5201 -P 4 -t "$SECS" -J \
		>"$out/$kind.tcp.json" &
	tcp=$!
	udp_elephant "$SND" "$RCV_IP" 4791 "$UDP_MBIT" "$SECS" "$out/$kind.udp.json" &
	udp=$!
	sleep 5	# let the queues build
	mkdir -p "$out/$kind"
	sampler $((SECS - 7)) "$out/$kind" 5201 &
	smp=$!
	probes $((SECS - 7)) "$kind"
	wait "$smp" || true
	wait "$tcp" "$udp" || echo "demo: iperf3 failed under $kind" >&2
	dut_tc -s qdisc show dev "$DUT_DEV" >"$out/$kind.qdisc"
	dut_tc -s class show dev "$DUT_DEV" parent 1: >"$out/$kind.class" 2>&1 || true
}

cs=/sys/devices/system/clocksource/clocksource0/current_clocksource
echo "demo: kernel $(uname -r), $(nproc) vCPU, guest time $([ "${AICLASS_VM_DETERMINISTIC:-0}" = 1 ] &&
	echo "from the instruction count (icount)" || echo "from the host's clock (TCG)"), clocksource $(cat $cs), up $(cut -d' ' -f1 /proc/uptime) s"
echo "demo: ${IDLE_SECS}s of inference alone (aiclass, no training): the latency floor"
dut_qdisc aiclass || die "cannot install aiclass on the bottleneck"
probes "$IDLE_SECS" idle
kinds="fq_codel cake aiclass"
run_load fq_codel fq_codel
run_load cake cake besteffort
run_load aiclass aiclass

# aiclass's guard as the demo runs it: the defaults of sch_aiclass.h.
hdef() {
	sed -n "s/^#define AICLASS_DEF_$1[[:space:]]*\([0-9() *]*\).*/\1/p" "$top/sch_aiclass.h" |
		head -n 1
}
burst=$(($(hdef BURST)))
share=$(($(hdef TRAIN_SHARE)))

# The table: one python pass over every kind's files.  The physical limit:
# the most an inference packet can wait under strict priority beside
# saturating training:
# the packet on the wire plus what the guard owes training,
#   L_pkt = MTU / R + burst * train_share / R;
# of an RPC of S response bytes (S_wire with the headers of its packets):
# its idle round trip plus L_pkt plus training's share of the link while
# the response is sent, S_wire / R * share / (1 - share).
python3 - "$out" "$RATE_MBIT" "$burst" "$share" "$MTU_WIRE" "$SECS" "$top/tools/bench" $kinds <<'EOF'
import json, os, re, statistics, sys
out, rate, burst, share, mtu, secs, bench = sys.argv[1:8]
kinds = sys.argv[8:]
sys.path.insert(0, bench)
from report import parse_classes
R = float(rate) * 1e6 / 8          # bytes per second
burst, share, mtu = int(burst), int(share) / 100, int(mtu)
l_pkt = (mtu + burst * share) / R  # s

def pct(v, p):
    if not v:
        return None
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p / 100))]

def rpcs(tag):
    try:
        return json.load(open(f"{out}/{tag}.rpc.json"))["rpcs"]
    except (OSError, ValueError, KeyError):
        return []

def ping(tag, p):
    try:
        t = open(f"{out}/{tag}.ping").read()
    except OSError:
        return None
    m = re.search(r"percentile %.3f = *([0-9.]+)" % p, t)
    return float(m.group(1)) / 1e3 if m else None

def wire(size):
    return size + -(-size // 1448) * 66

idle = rpcs("idle")
idle_by_size = {}
for lat, size, _ in idle:
    idle_by_size.setdefault(size, []).append(lat / 1e3)
idle_med = {s: statistics.median(v) for s, v in idle_by_size.items()}

def limit(size):
    base = idle_med.get(size)
    if base is None:
        return None
    return base + (l_pkt + wire(size) / R * share / (1 - share)) * 1e3

def fmt(x, unit=""):
    return "n/a" if x is None else ("%.2f" % x) + unit

rows = []
def row(label, f, lim=None):
    rows.append([label] + [f(k) for k in kinds] + [lim if lim is not None else ""])

def lat(k, sel, p):
    return fmt(pct([r[0] / 1e3 for r in rpcs(k) if sel(r[1])], p))

def lim(sel, p):
    return fmt(pct([limit(r[1]) for r in rpcs("aiclass") if sel(r[1]) and limit(r[1])], p))

every = lambda s: True
big = lambda s: s >= 65536
small = lambda s: s <= 4096
row("RPC round trip p50 (ms)", lambda k: lat(k, every, 50), lim(every, 50))
row("RPC round trip p99 (ms)", lambda k: lat(k, every, 99), lim(every, 99))
row("  responses 64-128 KB p99 (ms)", lambda k: lat(k, big, 99), lim(big, 99))
row("  responses <= 4 KB p99 (ms)", lambda k: lat(k, small, 99), lim(small, 99))
row("RPCs completed", lambda k: str(len(rpcs(k))), str(len(idle)) + " idle")
ip50, ip99 = ping("idle", 50), ping("idle", 99)
row("ping-pong 200 B p50 (ms)", lambda k: fmt(ping(k, 50)),
    fmt(ip50 + l_pkt * 1e3) if ip50 else "")
row("ping-pong 200 B p99 (ms)", lambda k: fmt(ping(k, 99)),
    fmt(ip99 + l_pkt * 1e3) if ip99 else "")

def iperf(k, kind):
    try:
        e = json.load(open(f"{out}/{k}.{kind}.json"))["end"]
    except (OSError, ValueError, KeyError):
        return "n/a"
    if kind == "tcp":
        return "%.1f Mb" % (e["sum_received"]["bits_per_second"] / 1e6)
    s = e["sum"]
    return "%.1f Mb" % (s["bits_per_second"] * (1 - s.get("lost_percent", 0) / 100) / 1e6)

def rtt(k):
    try:
        v = sorted(float(l.split()[1]) for l in open(f"{out}/{k}/rtt.txt"))
    except OSError:
        return "n/a"
    return "%.1f/%.1f" % (pct(v, 50), pct(v, 90)) if v else "n/a"

def sojourn(k, handle):
    avg, mx = [], None
    try:
        text = open(f"{out}/{k}/class.samples").read()
    except OSError:
        return "-"
    for t in text.split("@@ "):
        for c in parse_classes(t):
            if c["class"] == "aiclass" and c["handle"] == handle and "sojourn_avg" in c:
                avg.append(c["sojourn_avg"] / 1e6)
                mx = (c.get("sojourn_max") or 0) / 1e6
    return "%.1f/%.1f" % (statistics.median(avg), mx) if avg else "-"

def cpu(k):
    try:
        return open(f"{out}/{k}.cpu").read().strip()
    except OSError:
        return "n/a"

row("training TCP goodput, 4 streams", lambda k: iperf(k, "tcp"))
row("training UDP 4791 goodput", lambda k: iperf(k, "udp"))
row("training TCP RTT p50/p90 (ms)", rtt)
row("class 1:11 sojourn avg/max (ms)", lambda k: sojourn(k, "1:11"))
row("band 1:1 sojourn avg/max (ms)", lambda k: sojourn(k, "1:1"))
row("guest CPU busy", cpu, cpu("idle") + " idle")

w = [max(len(r[i]) for r in rows + [[""] + kinds + ["limit"]]) for i in range(len(kinds) + 2)]
print("%-*s" % (w[0], ""), *("%*s" % (w[i + 1], k) for i, k in enumerate(kinds)),
      "%*s" % (w[-1], "limit"))
for r in rows:
    print("%-*s" % (w[0], r[0]), *("%*s" % (w[i + 1], r[i + 1]) for i in range(len(kinds))),
          "%*s" % (w[-1], r[-1]))
print()
print("limit: the idle round trip plus the most that saturating training can add")
print("under strict priority.  Per inference packet: the packet on the wire plus")
print("what aiclass's guard owes training,")
print("L = MTU/R + burst*train_share/R = %d B/%s Mbit + %d B*%d%%/%s Mbit"
      % (mtu, rate, burst, round(share * 100), rate))
print("  = %.2f + %.2f = %.2f ms.  Per RPC of S response bytes (S_w on the wire):"
      % (mtu / R * 1e3, burst * share / R * 1e3, l_pkt * 1e3))
print("its idle round trip (median of that size, inference alone, above) + L +")
print("S_w/R * train_share/(1 - train_share), training's share while it is sent.")
print("Responses stop at 128 KB: aiclass's default elephant is 256 KB, and a")
print("response past it is training by design.")
EOF
