#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print sizeof(struct NAME) from the running kernel's BTF
(/sys/kernel/btf/vmlinux, or a module's split BTF on top of it), so that
make bench can report the per-flow state of the kernel's own qdiscs; or,
with --offsets, the byte offsets of members of a vmlinux struct (members of
anonymous structs and unions inside it included), one per line, for
tools/bench/qdelay.bt, which reads the skb by offset: a bpftrace cast to a
kernel struct has clang parse its whole type closure, minutes of the test
bed's emulated CPU.

usage: btfsize.py STRUCT [MODULE]
       btfsize.py --offsets STRUCT MEMBER...
"""
import os
import struct
import sys

BTF = "/sys/kernel/btf/"
# bytes that follow struct btf_type, by kind: fixed, or per vlen entry
FIXED = {1: 4, 3: 12, 14: 4, 17: 4}     # INT ARRAY VAR DECL_TAG
PER_VLEN = {4: 12, 5: 12, 6: 8, 13: 8, 15: 12, 19: 12}  # STRUCT UNION ENUM
                                        # FUNC_PROTO DATASEC ENUM64


def types(data):
    magic, _, _, hdr_len, type_off, type_len, str_off, str_len = \
        struct.unpack_from("<HBBIIIII", data)
    if magic != 0xEB9F:
        raise SystemExit("not BTF")
    t = hdr_len + type_off
    end = t + type_len
    strs = data[hdr_len + str_off:hdr_len + str_off + str_len]
    out = []
    while t < end:
        name_off, info, size = struct.unpack_from("<III", data, t)
        kind = (info >> 24) & 0x1F
        vlen = info & 0xFFFF
        t += 12
        members = []
        if kind in (4, 5):
            for i in range(vlen):
                members.append(struct.unpack_from("<III", data, t + 12 * i))
        if kind in PER_VLEN:
            t += PER_VLEN[kind] * vlen
        elif kind in FIXED:
            t += FIXED[kind]
        out.append((name_off, kind, size, (info >> 31) & 1, members))
    return out, strs, str_len


def name(strs, off):
    return strs[off:strs.index(b"\0", off)].decode()


def offsets(sname, members):
    """Byte offsets of MEMBERS of vmlinux's struct SNAME."""
    btypes, bstrs, _ = types(open(BTF + "vmlinux", "rb").read())
    found = {}

    def walk(tid, base):
        _, _, _, kflag, mems = btypes[tid - 1]
        for moff, mtype, bits in mems:
            bit = bits & 0xFFFFFF if kflag else bits
            if moff:
                found.setdefault(name(bstrs, moff), base + bit // 8)
            else:
                walk(resolve(mtype), base + bit // 8)

    def resolve(tid):
        # through typedefs and qualifiers to the struct or union
        while btypes[tid - 1][1] in (8, 9, 10, 11):
            tid = btypes[tid - 1][2]
        return tid

    for i, (off, kind, _, _, _) in enumerate(btypes):
        if kind == 4 and off and name(bstrs, off) == sname:
            walk(i + 1, 0)
            break
    else:
        raise SystemExit("struct %s not found" % sname)
    for m in members:
        if m not in found:
            raise SystemExit("struct %s has no member %s" % (sname, m))
        print(found[m])


def main():
    if sys.argv[1] == "--offsets":
        offsets(sys.argv[2], sys.argv[3:])
        return
    want = sys.argv[1]
    base = open(BTF + "vmlinux", "rb").read()
    btypes, bstrs, blen = types(base)
    if len(sys.argv) > 2 and os.path.exists(BTF + sys.argv[2]):
        # (a qdisc built into the kernel has no module BTF: vmlinux's)
        mod = open(BTF + sys.argv[2], "rb").read()
        mtypes, mstrs, _ = types(mod)
        for off, kind, size, _, _ in mtypes:
            if kind == 4 and off >= blen and name(mstrs, off - blen) == want:
                print(size)
                return
    for off, kind, size, _, _ in btypes:
        if kind == 4 and off and name(bstrs, off) == want:
            print(size)
            return
    raise SystemExit("struct %s not found" % want)


if __name__ == "__main__":
    main()
