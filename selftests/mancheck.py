#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""selftests/mancheck.py AICLASSCTL TOP - the shared option and stat table
of tools/lib/aiclass against both man pages, tc/tc-aiclass.8 and
tools/aiclassctl/aiclassctl.8, so that they cannot drift apart again.

Every option of the table (as `aiclassctl -j options` and `aiclassctl
options` print it) must have an entry of its own in each page's option
list (tc-aiclass.8 PARAMETERS, aiclassctl.8 OPTIONS) that says its
default, in the form the tools print it ("default 10ms", "Default 64 Kb",
"default ecn", "Default auto"); options whose default depends on the device
or on other options (quantum, thresholds) need only say "default".  No
page may list an option the table does not have.  Every counter of the
stat table (the JSON keys of tools/lib/aiclass/stats.c, qdisc and class)
must appear in each page's section on them (tc-aiclass.8 STATISTICS,
aiclassctl.8 JSON).  Prints one line per problem; exit 1 if any.
"""
import json
import re
import subprocess
import sys

ctl, top = sys.argv[1], sys.argv[2]
# page: (section of the options, section of the counters)
PAGES = {
    "tc/tc-aiclass.8": ("PARAMETERS", "STATISTICS"),
    "tools/aiclassctl/aiclassctl.8": ("OPTIONS", "JSON"),
}
# not options of the qdisc, but listed with them: the class options
EXTRA_TAGS = {"weight", "slo"}


def plain(text):
    """man source to lower-case words: macros and fonts gone, '64 Kb' as
    '64kb'."""
    out = []
    for line in text.splitlines():
        if line.startswith("."):
            m = re.match(r"\.(?:B|I|BR|RB|BI|IB|IR|RI)\s+(.*)", line)
            if not m:
                continue
            line = m.group(1).replace('"', "")
        out.append(line)
    t = " ".join(out)
    t = re.sub(r"\\f[BIRP]", "", t)
    t = t.replace("\\-", "-").replace("\\e", "\\").replace("\\(bu", "")
    t = re.sub(r"\s+", " ", t).lower()
    return re.sub(r"(\d) (b|kb|mb|gb|us|ms|s)\b", r"\1\2", t)


def entries(section):
    """{first word of a .TP tag: plain text of tag and body}"""
    out = {}
    for block in section.split("\n.TP\n")[1:]:
        tag, _, body = block.partition("\n")
        words = re.findall(r"[a-z_0-9]+", plain(tag))
        if words:
            out.setdefault(words[0], plain(tag + "\n" + body))
    return out


table = json.loads(subprocess.check_output([ctl, "-j", "options"]))
usage = subprocess.check_output([ctl, "options"], text=True)
shown = {}
for line in usage.splitlines():
    m = re.match(r"  (\w+) .*, default (\S+)$", line)
    if m:
        shown[m.group(1)] = m.group(2).lower()

stats_c = open(top + "/tools/lib/aiclass/stats.c").read()
counters = sorted(set(re.findall(r'\bST(?:64)?\("(\w+)"', stats_c)) |
                  set(re.findall(r'\.key = "(\w+)"', stats_c)))


def defaults(o):
    """The forms the default may be written in; [] for 'just say
    default'."""
    name = o["name"]
    if name in shown:
        return [shown[name]]
    if o["default"] is None or name == "thresholds":
        return []
    if o["neg"] and o["max"] == 1 and o["min"] == 0:	# a flag
        return [name if o["default"] else o["neg"]]
    if name in ("priomap", "dscpmap"):
        return ["auto"]
    if name == "default_class":
        return ["1:%x" % o["default"], "%x" % o["default"]]
    return [str(o["default"])]


errors = []
def section(src, name):
    return src.split("\n.SH %s\n" % name)[1].split("\n.SH ")[0]


for page, (sect_name, stat_sect) in PAGES.items():
    src = open(top + "/" + page).read()
    sect = section(src, sect_name)
    ents = entries(sect)
    names = {o["name"] for o in table}
    for o in table:
        name = o["name"]
        body = ents.get(name)
        if body is None:
            errors.append("%s: option %s has no entry in %s" %
                          (page, name, sect_name))
            continue
        forms = defaults(o)
        if not forms:
            if "default" not in body:
                errors.append("%s: %s: no default given" % (page, name))
            continue
        if not any(re.search(r"default:? (?:is )?" + re.escape(f) +
                             r"(?![\w:])", body) for f in forms):
            errors.append("%s: %s: the default is not %s there" %
                          (page, name, " or ".join(forms)))
    for tag in sorted(set(ents) - names - EXTRA_TAGS):
        errors.append("%s: %s lists \"%s\", which is no option of the table" %
                      (page, sect_name, tag))
    text = plain(section(src, stat_sect))
    for key in counters:
        if not re.search(r"(?<![\w])" + re.escape(key) + r"(?![\w])", text):
            errors.append("%s: counter %s is not in %s" %
                          (page, key, stat_sect))

print("%d options, %d counters, %d pages compared" %
      (len(table), len(counters), len(PAGES)))
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
