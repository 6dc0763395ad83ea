/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels aiclass builds for (Debian's 6.1 LTS and
 * 6.12 LTS, any kernel >= 6.1), feature-tested where stable backports blur
 * version numbers.
 */
#ifndef _AICLASS_COMPAT_H
#define _AICLASS_COMPAT_H

#include <net/pkt_cls.h>
#include <net/pkt_sched.h>

/* skb_gso_segment() moved to net/gso.h in 6.5, with SKB_GSO_CB() that
 * linux/skbuff.h defined before.
 */
#include <linux/skbuff.h>
#ifndef SKB_GSO_CB
#include <net/gso.h>
#endif

/* Since 6.9 qdisc modules are requested as "net-sch-<kind>"; before, the
 * module name sch_<kind> itself was requested and no alias was needed.
 */
#ifdef MODULE_ALIAS_NET_SCH
#define AICLASS_MODULE_ALIAS(kind)	MODULE_ALIAS_NET_SCH(kind)
#else
#define AICLASS_MODULE_ALIAS(kind)	MODULE_ALIAS("net-sch-" kind)
#endif

/* tcf_classify() has taken (skb, block, tp, res, compat) since 5.14.
 * Redirect verdicts are not valid from a qdisc's filters: treat them as a
 * drop, as newer kernels' tcf_classify_qdisc() does.
 */
static inline int aiclass_tcf_classify(struct sk_buff *skb,
				       const struct tcf_proto *tp,
				       struct tcf_result *res)
{
	int ret = tcf_classify(skb, NULL, tp, res, false);

	return ret == TC_ACT_REDIRECT ? TC_ACT_SHOT : ret;
}

#endif /* _AICLASS_COMPAT_H */
