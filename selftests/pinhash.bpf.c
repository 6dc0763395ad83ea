// SPDX-License-Identifier: GPL-2.0
/* A tc filter (cls_bpf, direct action) for the flow-table cases: on the
 * packets of IP protocol 253 that selftests/rawflow.py sends, set skb->hash
 * to the payload's first word and, when the second is not 0, the classid
 * to it.  aiclass keys a flow without ports by skb->hash, so a test can put
 * two flows in one slot, or fill a set, by construction.  Built by the
 * case with clang -target bpf; no libbpf headers needed.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <linux/if_ether.h>
#include <linux/ip.h>

static long (*bpf_set_hash)(struct __sk_buff *skb, __u32 hash) =
	(void *)BPF_FUNC_set_hash;
static long (*bpf_skb_load_bytes)(const void *skb, __u32 off, void *to,
				  __u32 len) = (void *)BPF_FUNC_skb_load_bytes;

__attribute__((section("classifier"), used))
int pinhash(struct __sk_buff *skb)
{
	struct iphdr ip;
	__u32 v[2];

	if (skb->protocol != __builtin_bswap16(ETH_P_IP))
		return TC_ACT_UNSPEC;
	if (bpf_skb_load_bytes(skb, ETH_HLEN, &ip, sizeof(ip)) ||
	    ip.protocol != 253 || ip.ihl != 5 ||
	    bpf_skb_load_bytes(skb, ETH_HLEN + sizeof(ip), v, sizeof(v)))
		return TC_ACT_UNSPEC;
	bpf_set_hash(skb, __builtin_bswap32(v[0]));
	if (!v[1])
		return TC_ACT_UNSPEC;
	skb->tc_classid = __builtin_bswap32(v[1]);
	return TC_ACT_OK;
}

char _license[] __attribute__((section("license"), used)) = "GPL";
