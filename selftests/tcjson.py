# SPDX-License-Identifier: GPL-2.0
"""What the selftests read from the JSON of tc and aiclassctl: a key at any
depth, and the options of an aiclass instance."""

import json


def find(o, k):
    """The value of key k in o or the first nested object that has it, or
    None."""
    if isinstance(o, dict):
        if k in o:
            return o[k]
        o = list(o.values())
    if isinstance(o, list):
        for v in o:
            r = find(v, k)
            if r is not None:
                return r
    return None


def ctl_options(path):
    """The options of the first instance in an `aiclassctl -j show` file."""
    with open(path) as f:
        return json.load(f)["instances"][0]["options"]


def tc_options(path):
    """The options of the first aiclass qdisc in a `tc -j qdisc show` file."""
    with open(path) as f:
        return [q for q in json.load(f) if q["kind"] == "aiclass"][0]["options"]
