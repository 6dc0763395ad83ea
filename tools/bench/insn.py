#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tools/bench/insn.py RAW OUT "FLOWS..." - the instruction profile's report.

RAW holds, per flow count F, what tools/bench/insn-profile gathered:
blocks_F.txt (QEMU's hotblocks report: "pc, tcount, icount, ecount" per
translated block), kallsyms_F (the guest's /proc/kallsyms) and runs_F.txt
("NAME FLOWS PACKETS PPS NS" per contender).  Every block is charged to the
kernel symbol it starts in, and every symbol to the contender whose own code
it is (a qdisc's functions: built in by name, a module by its [module]);
what they call in the kernel (flow dissector, clock, list checks) and the
parent prio are charged to nobody.  Writes OUT/insn_profile.txt, a section
of OUT/bench.md and the "insn" entry of OUT/bench.json.
"""
import bisect
import json
import os
import re
import sys
from collections import Counter

# contender -> (regex on "name [module]"): its own functions.
OWN = {
    "fq_codel": r"^(fq_codel_\w+|dequeue_func|drop_func) $",
    "ets": r"\[sch_ets\]$",
    "cake": r"\[sch_cake\]$",
    "fq": r"\[sch_fq\]$",
    "aiclass": r"\[sch_aiclass\]$",
}
SECTION = "## Instructions per packet"


def load_syms(path):
    syms = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) < 3 or p[1] not in "tTwW":
                continue
            a = int(p[0], 16)
            if a:
                syms.append((a, "%s %s" % (p[2], p[3] if len(p) > 3 else "")))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def profile(raw, flows):
    addrs, names = load_syms(os.path.join(raw, "kallsyms_%s" % flows))
    per_sym = Counter()
    with open(os.path.join(raw, "blocks_%s.txt" % flows)) as f:
        for line in f:
            if not line.startswith("0x"):
                continue
            pc, _, icount, ecount = [x.strip() for x in line.split(",")]
            i = bisect.bisect_right(addrs, int(pc, 16)) - 1
            if i >= 0:
                per_sym[names[i]] += int(icount) * int(ecount)
    packets = {}
    with open(os.path.join(raw, "runs_%s.txt" % flows)) as f:
        for line in f:
            p = line.split()
            packets[p[0]] = int(p[2])
    own = {}
    funcs = {}
    for c, rx in OWN.items():
        if c not in packets:
            continue
        r = re.compile(rx)
        hits = {s: n for s, n in per_sym.items() if r.search(s)}
        own[c] = sum(hits.values()) / packets[c]
        funcs[c] = {s.split()[0]: n / packets[c] for s, n in hits.items()}
    return own, funcs


def main():
    raw, out, flow_counts = sys.argv[1], sys.argv[2], sys.argv[3].split()
    res = {f: profile(raw, f) for f in flow_counts}
    contenders = [c for c in OWN if all(c in res[f][0] for f in flow_counts)]
    lines = [
        SECTION,
        "",
        "Guest instructions each contender executes in its own functions per "
        "packet (QEMU's hotblocks plugin, one TCG boot per flow count; the "
        "cost phase's fair placement, pktgen into a dummy, the contender as "
        "the child of a prio band). Kernel helpers they call (flow dissector, "
        "clock, list checks) and the parent are not counted. Counts do not "
        "depend on the host's load; instructions are not time.",
        "",
        "| contender | 16 flows | 1000 | 10000 | x fq_codel 16 / 1k / 10k |",
        "| --- | --- | --- | --- | --- |",
    ]
    for c in contenders:
        v = [res[f][0][c] for f in flow_counts]
        base = [res[f][0].get("fq_codel") for f in flow_counts]
        ratio = " / ".join("%.2f" % (a / b) if b else "-" for a, b in zip(v, base))
        lines.append("| %s | %s | %s |" % (c, " | ".join("%.0f" % x for x in v), ratio))
    lines.append("")
    if "aiclass" in contenders:
        lines.append("aiclass by function, instructions per packet (16 / 1000 / 10000 flows):")
        lines.append("")
        fn = Counter()
        for f in flow_counts:
            for s, n in res[f][1]["aiclass"].items():
                fn[s] += n
        for s, _ in fn.most_common():
            v = [res[f][1]["aiclass"].get(s, 0) for f in flow_counts]
            if max(v) < 0.5:
                continue
            lines.append("    %-28s %s" % (s, " / ".join("%6.1f" % x for x in v)))
        lines.append("")
    text = "\n".join(lines)
    with open(os.path.join(out, "insn_profile.txt"), "w") as f:
        f.write(text)
    md = os.path.join(out, "bench.md")
    if os.path.exists(md):
        with open(md) as f:
            body = f.read()
        if SECTION in body:
            body = body[:body.index(SECTION)].rstrip("\n") + "\n"
        with open(md, "w") as f:
            f.write(body + "\n" + text)
    js = os.path.join(out, "bench.json")
    if os.path.exists(js):
        with open(js) as f:
            d = json.load(f)
        d["insn"] = {f: {"own_per_packet": res[f][0], "aiclass_functions": res[f][1].get("aiclass", {})}
                     for f in flow_counts}
        with open(js, "w") as f:
            json.dump(d, f, indent=1)
    print(text)


if __name__ == "__main__":
    main()
