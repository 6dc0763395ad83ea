#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How far repeated `make bench` runs agree: for each number a target of
tools/bench/report.py reads, its value in every run, the median and the
spread, (max - min) / median, as a markdown table.

usage: spread.py BENCH.json BENCH.json...
"""
import json
import sys


def values(t):
    v = t.get("value")
    if isinstance(v, list):
        return [("%s [%d]" % (t["target"], i), x) for i, x in enumerate(v)]
    return [(t["target"], v)]


def main():
    runs = [json.load(open(p)) for p in sys.argv[1:]]
    if len(runs) < 2:
        raise SystemExit("usage: spread.py BENCH.json BENCH.json...")
    names, got = [], {}
    for r in runs:
        for t in r.get("targets", []):
            for name, v in values(t):
                if name not in got:
                    names.append(name)
                got.setdefault(name, []).append(v)
    print("| number a target reads | %s | median | spread |" %
          " | ".join("run %d" % (i + 1) for i in range(len(runs))))
    print("| --- |%s --- | --- |" % (" --- |" * len(runs)))
    for name in names:
        vs = got[name]
        nums = sorted(v for v in vs if isinstance(v, (int, float)))
        if len(nums) < len(runs):
            sp = med = None
        else:
            n = len(nums)
            med = (nums[n // 2] if n % 2 else (nums[n // 2 - 1] + nums[n // 2]) / 2)
            sp = (nums[-1] - nums[0]) / abs(med) if med else None
        print("| %s | %s | %s | %s |" % (
            name, " | ".join("-" if v is None else "%.4g" % v for v in vs),
            "-" if med is None else "%.4g" % med,
            "-" if sp is None else "%.1f %%" % (sp * 100)))


if __name__ == "__main__":
    main()
