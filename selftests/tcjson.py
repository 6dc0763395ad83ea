# SPDX-License-Identifier: GPL-2.0
"""What the selftests read from tc's JSON: a key at any depth."""


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
