// SPDX-License-Identifier: GPL-2.0
/*
 * aiclass: AI training / inference classifying packet scheduler
 *
 * Description
 * -----------
 *
 * aiclass is a classful qdisc for hosts and gateways whose link carries both
 * AI training traffic (collectives: a few long, heavy flows that must share
 * the link by weight and move at the same pace) and AI inference traffic
 * (short, bursty RPCs that need low and stable latency while training keeps
 * the link full).  It tells the two apart without help from applications.
 *
 * Classes have fixed ids: latency bands 1:1 .. 1:8 (lat_bands of them, 1:1
 * first) and training classes 1:11 .. 1:20 (train_classes of them).  Inside
 * every class packets wait in per-flow queues, so one RPC cannot block
 * another and one flow of a collective cannot run ahead of its siblings.
 *
 * Classification, first match wins:
 *  1. skb->priority naming one of our live classes;
 *  2. tc filters attached to the qdisc;
 *  3. priomap entry for skb->priority & 15, unless it says auto;
 *  4. dscpmap entry for the packet's DSCP, unless it says auto;
 *  5. RoCEv2 (UDP destination port roce_port): congestion notifications and
 *     acknowledgements to 1:1, data to the default training class;
 *  6. auto: a flow's current burst starts in 1:1 and is demoted band by
 *     band as its byte count crosses the thresholds, then to the default
 *     training class past the elephant threshold (multi-level feedback, as
 *     in PIAS).  Only what the flow queues counts: a packet that finds less
 *     than a quantum of its flow waiting adds nothing, so a flow that never
 *     builds a queue (a ping-pong, a token stream) keeps its band.  A flow
 *     that stays empty and silent for idle starts a new burst, in 1:1 --
 *     unless it had become an elephant and has been quiet for less than
 *     forget: then it stays training.  A flow whose session (its bytes
 *     since it was quiet for 10 idles) has queued two elephants is
 *     training however idle cut its bursts: a sender that stalls.
 *
 * Demotions move flows; explicit routes place packets.  The queue of an
 * auto-classified flow is keyed by the flow hash (aiclass's own, of the
 * 5-tuple: TCP's skb->hash changes after a timeout), and a demotion moves
 * the whole queue, in order, to its new class.  A packet that routes 1-5
 * place goes to the queue keyed by its flow hash and its class, so a flow
 * whose packets are placed in several classes (a RoCE queue pair's data
 * and acknowledgements share one 5-tuple) has a queue in each, and no
 * packet ever drags another class's backlog.
 *
 * Algorithm
 * ---------
 *
 * Latency bands are strict priority, found through a bitmap of backlogged
 * classes.  Training classes are served by deficit round robin over an
 * active list, as sch_drr.c: a class that gets backlog joins the tail with
 * a fresh quantum, one that drains leaves, quantum = weight * quantum.
 * Inside a class the backlogged flows are served by DRR with a one-quantum
 * share each; a flow leaves the round when its queue drains.
 *
 * Every flow queue runs CoDel (the kernel's codel_dequeue(), as fq_codel):
 * once its packets have waited longer than target for an interval, ECT
 * packets are marked CE and others dropped at the head, so no class keeps a
 * standing queue.  A flow that drains leaves CoDel's dropping state, as an
 * empty fq_codel flow does on its next turn.  Training classes also mark
 * CE above ce_threshold (the DCTCP / DCQCN step).  AQM drops charge
 * neither the guard nor a deficit, and are reported to the parents only
 * once a peeked packet is back in sch->gso_skb (aiclass_peek()).
 *
 * A credit counter keeps training from starving: while training is
 * backlogged, every latency byte adds train_share and every training byte
 * takes away (100 - train_share).  Once the credit reaches
 * train_share * burst the latency side yields to training; so latency may run
 * ahead by burst bytes and training keeps train_share percent of the bytes.
 * When training is idle the credit is cleared and latency takes the link.
 *
 * The flow table is set associative (as sch_cake's): a flow takes one of
 * the AICLASS_FLOW_WAYS slots of its set, tagged with its key.  When every
 * slot of the set is backlogged an auto flow shares its home slot, and
 * every auto flow without a slot of its own keeps going there until that
 * slot drains; a placed packet goes to its class's spill queue the same
 * way; so a flow is never reordered, and a placed packet never waits in
 * another class.  A new flow takes its home slot if that slot's flow is
 * over, else the finished flow's slot quiet longest, and only then a
 * recent flow's or a remembered elephant's.
 *
 * Limits: limit packets and memory_limit bytes of truesize in all, the
 * backstop behind CoDel.  On overflow the training flow with the largest
 * backlog for its class's weight loses half its backlog (at most
 * AICLASS_DROP_BATCH packets and AICLASS_DROP_BATCH_BYTES), and latency
 * traffic is dropped only beyond lat_limit packets per band or when there
 * is no training traffic left to drop.  An optional shaper (rate) paces
 * dequeue with a virtual clock and the qdisc watchdog; it belongs to the
 * root.  Below 1 Gbit/s -- the shaper's rate, or without it the device's
 * link speed -- GSO packets are split (split_gso), so that no
 * super-packet holds the link for long in front of an RPC.
 */

#include <linux/module.h>
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/skbuff.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/ethtool.h>
#include <linux/log2.h>
#include <linux/jhash.h>
#include <linux/random.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/pkt_cls.h>
#include <net/sch_generic.h>
#include <net/inet_ecn.h>
#include <net/dsfield.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/codel.h>
#include <net/codel_impl.h>

#include "sch_aiclass.h"
#include "aiclass_compat.h"

#define AICLASS_DROP_BATCH	64	/* packets dropped per overflow, at most */
#define AICLASS_DROP_BATCH_BYTES (64 * 1024)	/* and bytes, at least one */
#define AICLASS_LEVEL_TRAIN	0xf	/* auto level: past the elephant */
#define AICLASS_ROCE_CNP	0x81	/* BTH opcode: congestion notification */
#define AICLASS_ROCE_RC_ACK	0x11	/* BTH opcode: RC acknowledge */
#define AICLASS_ROCE_RC_AACK	0x12	/* BTH opcode: RC atomic acknowledge */
#define AICLASS_SHAPER_SLACK	NSEC_PER_MSEC	/* shaper burst, at least */
#define AICLASS_SPLIT_GSO_RATE	(1000000000ULL / 8)	/* bytes/s: 1 Gbit */
#define AICLASS_SPLIT_GSO_SPEED	1000	/* Mbit/s, ethtool's unit */
#define AICLASS_FLOW_WAYS	8	/* flow table: slots per set */
#define AICLASS_TIME_BITS	40	/* flow times: codel time, 13 days */
#define AICLASS_SESSION_GAP	10	/* a session ends at 10 idles quiet ... */
#define AICLASS_SESSION_ELEPHANTS 2	/* ... and is training past 2 elephants */
#define AICLASS_SESSION_UNITS	64	/* session units per elephant */
#define AICLASS_SLO_WINDOWS	4	/* SLO control window: 4 SLOs ... */
#define AICLASS_SLO_MIN_WINDOW	NSEC_PER_MSEC	/* ... and at least 1 ms */
#define AICLASS_SLO_BUDGET	100	/* a window misses: over 1 in 100 late */
#define AICLASS_SLO_STEP	(U32_MAX / 64)	/* additive increase */
#define AICLASS_SLO_DECAY	2	/* multiplicative decrease: p -= p/4 */
#define AICLASS_SLO_HEADROOM	4	/* downgrade at a queue of 3/4 SLO */

/* Flow flags */
#define AICLASS_FLOW_SHARED	BIT(0)	/* queues packets of other flows */
#define AICLASS_FLOW_SPILL	BIT(1)	/* a class's queue for placed packets
					 * that found no slot of their own
					 */
#define AICLASS_FLOW_DOWN	BIT(2)	/* auto: level lowered by an SLO for
					 * the rest of the burst; spill: its
					 * packets follow those it sent lower
					 */

/* Class index: 0 .. 7 latency bands, 8 .. 23 training classes. */
#define AICLASS_TRAIN_BASE	AICLASS_MAX_LAT_BANDS
#define AICLASS_LAT_MASK	GENMASK(AICLASS_MAX_LAT_BANDS - 1, 0)

/* What aiclass_classify() returns besides a class index. */
#define AICLASS_CLASSIFY_AUTO	(AICLASS_MAX_CLASSES + 1)
#define AICLASS_CLASSIFY_DROP	(AICLASS_MAX_CLASSES + 2)	/* shot */
#define AICLASS_CLASSIFY_STOLEN	(AICLASS_MAX_CLASSES + 3)	/* consumed */

enum aiclass_route {
	AICLASS_ROUTE_PRIORITY,
	AICLASS_ROUTE_FILTER,
	AICLASS_ROUTE_PRIOMAP,
	AICLASS_ROUTE_DSCPMAP,
	AICLASS_ROUTE_ROCE,
	AICLASS_ROUTE_AUTO,
	AICLASS_ROUTE_MAX
};

/* A slot of the flow table, 80 bytes: what lookup and the auto route read
 * first, then the queue, then CoDel's state.
 */
struct aiclass_flow {
	u32		  key;		/* tag: the key of the flow in the slot */
	u32		  tstamp;	/* last arrival or emptying: codel time,
					 * bits 0-31 (aiclass_flow_quiet())
					 */
	u32		  burst;	/* bytes queued in the current burst */
	u8		  cls;		/* class index while qlen > 0 */
	u8		  level:4;	/* auto: band, or AICLASS_LEVEL_TRAIN */
	u8		  flags:4;	/* AICLASS_FLOW_* */
	u8		  session;	/* the session's earlier bursts, in
					 * session units (aiclass_auto_class())
					 */
	u8		  tstamp_hi;	/* and bits 32-39 */
	struct sk_buff	  *head;	/* head->prev is the tail */
	struct list_head  flowchain;	/* in aiclass_class.flows */
	s32		  deficit;
	u32		  qlen;
	u32		  backlog;	/* bytes */
	u32		  mem;		/* bytes of truesize */
	struct codel_vars cvars;
};

struct aiclass_class {
	/* dequeue and enqueue */
	struct list_head flows;		/* backlogged flows, round robin */
	struct list_head alist;		/* training: in train_active */
	u32		 qlen;
	u32		 backlog;
	u32		 quantum;	/* training: weight * quantum */
	s32		 deficit;
	u32		 nflows;	/* flows in flows */
	u64		 sojourn_avg;	/* ns, EWMA 1/8 */
	struct gnet_stats_basic_sync bstats;
	/* stats */
	u64		 sojourn_max;	/* ns */
	u64		 ce_marks;
	u64		 aqm_drops;
	u64		 aqm_marks;
	struct gnet_stats_queue qstats;
	/* latency SLO: see aiclass_slo_account() */
	codel_time_t	 slo;		/* cfg->slos[] in codel time, 0 = off */
	codel_time_t	 slo_window;	/* control window */
	codel_time_t	 slo_start;	/* of the current window */
	codel_time_t	 slo_next;	/* last downgrade by a late packet */
	codel_time_t	 slo_last;	/* the last packet out left at */
	u32		 slo_byte_time;	/* codel time per byte << 16 while the
					 * band is backlogged, of the last
					 * window that measured it
					 */
	u32		 slo_prob;	/* downgrade probability, of U32_MAX */
	u32		 slo_pkts;	/* packets of the current window */
	u32		 slo_late;	/* of them later than slo */
	u32		 slo_busy;	/* time and bytes of them that left */
	u32		 slo_busy_bytes;/* while the band stayed backlogged */
	u64		 slo_met;
	u64		 slo_missed;
	u64		 slo_downgrades;
	u64		 spill_down;	/* enqueue time (ns) of the last packet
					 * the spill queue sent lower
					 */
	/* placed packets whose flows found no slot (AICLASS_FLOW_SPILL) */
	struct aiclass_flow spill;
} ____cacheline_aligned_in_smp;

/* Everything a netlink request can set; staged whole, committed whole. */
struct aiclass_config {
	u32 lat_bands;
	u32 train_classes;
	u32 weights[AICLASS_MAX_TRAIN_CLASSES];
	u32 thresholds[AICLASS_MAX_LAT_BANDS - 1];
	u32 slos[AICLASS_MAX_LAT_BANDS];	/* us, 0 = off */
	u32 burst;
	u32 train_share;
	u32 elephant;
	u32 idle;		/* us */
	u32 forget;		/* us */
	u32 flows;
	u32 limit;
	u32 memory_limit;
	u32 ce_threshold;	/* us */
	u32 lat_limit;
	u32 quantum;
	u32 target;		/* us */
	u32 interval;		/* us */
	u64 rate;		/* bytes/s */
	u16 roce_port;
	u8  default_class;	/* minor */
	u8  ecn;
	u8  split_gso;
	u8  slo_training;
	u8  priomap[AICLASS_PRIOMAP_LEN];
	u8  dscpmap[AICLASS_DSCPMAP_LEN];
};

struct aiclass_stats {
	u64 route[AICLASS_ROUTE_MAX];
	u64 demotions;
	u64 idle_resets;
	u64 remembered;
	u64 guard_yields;
	u64 ce_marks;
	u64 aqm_marks;
	u64 drop_aqm;
	u64 drop_overlimit;
	u64 drop_memory;
	u64 drop_filter;
	u64 drop_band;
	u64 stolen;
	u64 throttled;
	u64 flows_moved;
	u64 flows_shared;
	u64 gso_split;
	u64 slo_downgrades;
};

struct aiclass_sched_data {
	/* enqueue and dequeue */
	struct aiclass_flow *flows;
	u32		 flows_mask;
	u32		 backlogged;	/* bitmap of backlogged classes */
	u32		 slo_mask;	/* bitmap of bands with an SLO */
	struct list_head train_active;	/* backlogged training classes, DRR */
	u32		 train_qlen;
	u32		 train_mem;	/* truesize queued in training */
	u32		 memory_used;
	s64		 guard;		/* latency credit, see Algorithm */
	u64		 t_next;	/* shaper: earliest next dequeue, ns */
	u64		 rate_ns;	/* shaper: ns per byte << rate_shft */
	u32		 rate_shft;
	codel_time_t	 idle;		/* cfg->idle in codel time */
	codel_time_t	 forget;	/* cfg->forget in codel time */
	codel_time_t	 session_gap;	/* AICLASS_SESSION_GAP idles, or forget */
	u32		 session_unit;	/* bytes: elephant / SESSION_UNITS */
	u32		 hash_seed;	/* aiclass_hash() */
	bool		 parse_ip;	/* dscpmap or roce_port need the header */
	bool		 split_gso;	/* split_gso, below 1 Gbit/s */
	bool		 priomap_set;	/* a priomap entry is not auto */
	bool		 dscpmap_set;	/* a dscpmap entry is not auto */
	struct codel_stats cstats;
	struct codel_params cparams[2];	/* latency bands, training */
	struct tcf_proto __rcu *filter_list;
	struct aiclass_config cfg;

	/* control path and stats */
	u64		 shaper_slack_ns;
	struct tcf_block *block;
	struct qdisc_watchdog watchdog;
	struct aiclass_stats stats;

	struct aiclass_class classes[AICLASS_MAX_CLASSES];

	/* Under the qdisc lock, where enqueue copies the headers it reads
	 * of a packet that does not hold them in its linear part: a buffer
	 * on the stack would cost aiclass_enqueue() a stack canary and its
	 * zeroing at every packet.
	 */
	union {
		struct iphdr	iph;
		struct ipv6hdr	ip6h;
		__be16		ports[2];
		u8		op;
	} hdr_copy;
};

struct aiclass_skb_cb {
	u64 enqueue_time;	/* ns */
	u32 mem;
};

static struct aiclass_skb_cb *aiclass_cb(const struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct aiclass_skb_cb));
	return (struct aiclass_skb_cb *)qdisc_skb_cb(skb)->data;
}

static codel_time_t aiclass_skb_time(const struct sk_buff *skb)
{
	return aiclass_cb(skb)->enqueue_time >> CODEL_SHIFT;
}

static codel_time_t aiclass_us_to_codel(u32 us)
{
	return ((u64)us * NSEC_PER_USEC) >> CODEL_SHIFT;
}

/* A flow's times are codel time (ns >> CODEL_SHIFT) in AICLASS_TIME_BITS
 * bits: a u32 alone wraps after 73 minutes, within forget's range, and a
 * slot quiet for longer would look recent.  Quiet times saturate at
 * U32_MAX, past every idle and forget.
 */
static __always_inline void aiclass_flow_stamp(struct aiclass_flow *f, u64 t)
{
	f->tstamp = (u32)t;
	f->tstamp_hi = (u8)(t >> 32);
}

static __always_inline u32 aiclass_flow_quiet(const struct aiclass_flow *f,
					      u64 t)
{
	u64 then = (u64)f->tstamp_hi << 32 | f->tstamp;

	return min_t(u64, (t - then) & GENMASK_ULL(AICLASS_TIME_BITS - 1, 0),
		     U32_MAX);
}

static struct netlink_range_validation aiclass_burst_range = {
	.min = AICLASS_MIN_BURST, .max = AICLASS_MAX_BURST,
};

static struct netlink_range_validation aiclass_elephant_range = {
	.min = AICLASS_MIN_ELEPHANT, .max = AICLASS_MAX_ELEPHANT,
};

static struct netlink_range_validation aiclass_idle_range = {
	.min = AICLASS_MIN_IDLE, .max = AICLASS_MAX_IDLE,
};

static struct netlink_range_validation aiclass_flows_range = {
	.min = AICLASS_MIN_FLOWS, .max = AICLASS_MAX_FLOWS,
};

static struct netlink_range_validation aiclass_limit_range = {
	.min = AICLASS_MIN_LIMIT, .max = AICLASS_MAX_LIMIT,
};

static struct netlink_range_validation aiclass_memory_range = {
	.min = AICLASS_MIN_MEMORY_LIMIT, .max = AICLASS_MAX_MEMORY_LIMIT,
};

static struct netlink_range_validation aiclass_ce_range = {
	.min = 0, .max = AICLASS_MAX_CE_THRESHOLD,
};

static struct netlink_range_validation aiclass_lat_limit_range = {
	.min = 1, .max = AICLASS_MAX_LIMIT,
};

static struct netlink_range_validation aiclass_quantum_range = {
	.min = AICLASS_MIN_QUANTUM, .max = AICLASS_MAX_QUANTUM,
};

static struct netlink_range_validation aiclass_target_range = {
	.min = AICLASS_MIN_TARGET, .max = AICLASS_MAX_TARGET,
};

static struct netlink_range_validation aiclass_interval_range = {
	.min = AICLASS_MIN_INTERVAL, .max = AICLASS_MAX_INTERVAL,
};

static struct netlink_range_validation aiclass_forget_range = {
	.min = 0, .max = AICLASS_MAX_FORGET,
};

static const struct nla_policy aiclass_policy[TCA_AICLASS_MAX + 1] = {
	[TCA_AICLASS_LAT_BANDS]	    = NLA_POLICY_RANGE(NLA_U8, 1,
						       AICLASS_MAX_LAT_BANDS),
	[TCA_AICLASS_TRAIN_CLASSES] = NLA_POLICY_RANGE(NLA_U8, 1,
						       AICLASS_MAX_TRAIN_CLASSES),
	[TCA_AICLASS_WEIGHTS]	    = { .type = NLA_NESTED },
	[TCA_AICLASS_WEIGHT]	    = { .type = NLA_REJECT },
	[TCA_AICLASS_BURST]	    = NLA_POLICY_FULL_RANGE(NLA_U32,
							    &aiclass_burst_range),
	[TCA_AICLASS_TRAIN_SHARE]   = NLA_POLICY_MAX(NLA_U8,
						     AICLASS_MAX_TRAIN_SHARE),
	[TCA_AICLASS_THRESHOLDS]    = { .type = NLA_NESTED },
	[TCA_AICLASS_THRESHOLD]	    = { .type = NLA_REJECT },
	[TCA_AICLASS_ELEPHANT]	    = NLA_POLICY_FULL_RANGE(NLA_U32,
							    &aiclass_elephant_range),
	[TCA_AICLASS_IDLE]	    = NLA_POLICY_FULL_RANGE(NLA_U32,
							    &aiclass_idle_range),
	[TCA_AICLASS_FLOWS]	    = NLA_POLICY_FULL_RANGE(NLA_U32,
							    &aiclass_flows_range),
	[TCA_AICLASS_LIMIT]	    = NLA_POLICY_FULL_RANGE(NLA_U32,
							    &aiclass_limit_range),
	[TCA_AICLASS_MEMORY_LIMIT]  = NLA_POLICY_FULL_RANGE(NLA_U32,
							    &aiclass_memory_range),
	[TCA_AICLASS_CE_THRESHOLD]  = NLA_POLICY_FULL_RANGE(NLA_U32,
							    &aiclass_ce_range),
	[TCA_AICLASS_RATE]	    = { .type = NLA_U64 },
	[TCA_AICLASS_ROCE_PORT]	    = { .type = NLA_U16 },
	[TCA_AICLASS_PRIOMAP]	    = NLA_POLICY_EXACT_LEN(AICLASS_PRIOMAP_LEN),
	[TCA_AICLASS_DEFAULT_CLASS] = NLA_POLICY_RANGE(NLA_U8,
						       AICLASS_TRAIN_MINOR_MIN,
						       AICLASS_TRAIN_MINOR_MAX),
	[TCA_AICLASS_LAT_LIMIT]	    = NLA_POLICY_FULL_RANGE(NLA_U32,
							    &aiclass_lat_limit_range),
	[TCA_AICLASS_QUANTUM]	    = NLA_POLICY_FULL_RANGE(NLA_U32,
							    &aiclass_quantum_range),
	[TCA_AICLASS_PAD]	    = { .type = NLA_REJECT },
	[TCA_AICLASS_TARGET]	    = NLA_POLICY_FULL_RANGE(NLA_U32,
							    &aiclass_target_range),
	[TCA_AICLASS_INTERVAL]	    = NLA_POLICY_FULL_RANGE(NLA_U32,
							    &aiclass_interval_range),
	[TCA_AICLASS_ECN]	    = NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_AICLASS_FORGET]	    = NLA_POLICY_FULL_RANGE(NLA_U32,
							    &aiclass_forget_range),
	[TCA_AICLASS_DSCPMAP]	    = NLA_POLICY_EXACT_LEN(AICLASS_DSCPMAP_LEN),
	[TCA_AICLASS_SPLIT_GSO]	    = NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_AICLASS_SLOS]	    = { .type = NLA_NESTED },
	[TCA_AICLASS_SLO]	    = { .type = NLA_REJECT },
	[TCA_AICLASS_SLO_TRAINING]  = NLA_POLICY_MAX(NLA_U8, 1),
};

static const struct nla_policy aiclass_weight_policy[TCA_AICLASS_MAX + 1] = {
	[TCA_AICLASS_WEIGHT] = NLA_POLICY_RANGE(NLA_U32, AICLASS_MIN_WEIGHT,
						AICLASS_MAX_WEIGHT),
};

static struct netlink_range_validation aiclass_threshold_range = {
	.min = AICLASS_MIN_THRESHOLD, .max = AICLASS_MAX_ELEPHANT,
};

static const struct nla_policy aiclass_threshold_policy[TCA_AICLASS_MAX + 1] = {
	[TCA_AICLASS_THRESHOLD] = NLA_POLICY_FULL_RANGE(NLA_U32,
						&aiclass_threshold_range),
};

/* An SLO is 0 (off) or AICLASS_MIN_SLO .. AICLASS_MAX_SLO us: the policy
 * takes the top, aiclass_slo_valid() the rest.
 */
static struct netlink_range_validation aiclass_slo_range = {
	.max = AICLASS_MAX_SLO,
};

static const struct nla_policy aiclass_slo_policy[TCA_AICLASS_MAX + 1] = {
	[TCA_AICLASS_SLO] = NLA_POLICY_FULL_RANGE(NLA_U32, &aiclass_slo_range),
};

static const struct nla_policy aiclass_class_policy[TCA_AICLASS_CLASS_MAX + 1] = {
	[TCA_AICLASS_CLASS_WEIGHT] = NLA_POLICY_RANGE(NLA_U32,
						      AICLASS_MIN_WEIGHT,
						      AICLASS_MAX_WEIGHT),
	[TCA_AICLASS_CLASS_KIND]   = { .type = NLA_REJECT },
	[TCA_AICLASS_CLASS_SLO]	   = NLA_POLICY_FULL_RANGE(NLA_U32,
							   &aiclass_slo_range),
};

static bool aiclass_slo_valid(u32 us)
{
	return !us || us >= AICLASS_MIN_SLO;
}

/* Class ids and indexes */

static bool aiclass_is_training(unsigned int idx)
{
	return idx >= AICLASS_TRAIN_BASE;
}

static unsigned int aiclass_minor_to_idx(const struct aiclass_config *cfg,
					 u32 minor)
{
	if (minor >= AICLASS_LAT_MINOR_MIN &&
	    minor < AICLASS_LAT_MINOR_MIN + cfg->lat_bands)
		return minor - AICLASS_LAT_MINOR_MIN;
	if (minor >= AICLASS_TRAIN_MINOR_MIN &&
	    minor < AICLASS_TRAIN_MINOR_MIN + cfg->train_classes)
		return AICLASS_TRAIN_BASE + minor - AICLASS_TRAIN_MINOR_MIN;
	return AICLASS_MAX_CLASSES;
}

static u32 aiclass_idx_to_minor(unsigned int idx)
{
	if (aiclass_is_training(idx))
		return AICLASS_TRAIN_MINOR_MIN + idx - AICLASS_TRAIN_BASE;
	return AICLASS_LAT_MINOR_MIN + idx;
}

static unsigned int aiclass_default_idx(const struct aiclass_config *cfg)
{
	return AICLASS_TRAIN_BASE + cfg->default_class - AICLASS_TRAIN_MINOR_MIN;
}

/* Flow queues */

/* A class that gets backlog: latency bands are found by their bit; a
 * training class also joins the tail of the DRR list with a fresh quantum,
 * and one that drains leaves it (as sch_drr.c), so a class's turn follows
 * the round, not the moment its packets arrive.
 */
static __always_inline void
aiclass_class_activate(struct aiclass_sched_data *q, unsigned int idx)
{
	struct aiclass_class *cl = &q->classes[idx];

	if (aiclass_is_training(idx)) {
		cl->deficit = cl->quantum;
		list_add_tail(&cl->alist, &q->train_active);
	}
	q->backlogged |= BIT(idx);
}

static __always_inline void
aiclass_class_deactivate(struct aiclass_sched_data *q, unsigned int idx)
{
	/* A latency band is never on train_active: no list to leave. */
	if (aiclass_is_training(idx))
		list_del_init(&q->classes[idx].alist);
	q->backlogged &= ~BIT(idx);
}

/* Attach an empty flow's new backlog to class idx.  The helpers that run for
 * every packet are inlined: a call costs as much as their work.
 */
static __always_inline void aiclass_flow_link(struct aiclass_sched_data *q,
					      struct aiclass_flow *f,
					      unsigned int idx)
{
	struct aiclass_class *cl = &q->classes[idx];

	f->cls = idx;
	f->deficit = q->cfg.quantum;
	if (!cl->qlen)
		aiclass_class_activate(q, idx);
	list_add_tail(&f->flowchain, &cl->flows);
	cl->nflows++;
}

static __always_inline void aiclass_flow_unlink(struct aiclass_sched_data *q,
						struct aiclass_flow *f)
{
	struct aiclass_class *cl = &q->classes[f->cls];

	list_del_init(&f->flowchain);
	cl->nflows--;
	if (!cl->qlen)
		aiclass_class_deactivate(q, f->cls);
}

/* A flow whose queue drained forgets CoDel's dropping state, as
 * codel_dequeue() does when it finds a queue empty (fq_codel's flows do on
 * their next turn, ours leave the round at once): a burst that comes back
 * later must first stay above target for an interval, like any other.
 */
static __always_inline void aiclass_flow_drained(struct aiclass_flow *f)
{
	f->cvars.dropping = false;
	f->cvars.first_above_time = 0;
}

static void aiclass_class_account(struct aiclass_sched_data *q,
				  unsigned int idx, int pkts, int bytes,
				  int mem)
{
	q->classes[idx].qlen += pkts;
	q->classes[idx].backlog += bytes;
	if (aiclass_is_training(idx)) {
		q->train_qlen += pkts;
		q->train_mem += mem;
	}
}

/* Move a backlogged flow, all its packets in order, to class idx. */
static void aiclass_flow_move(struct aiclass_sched_data *q,
			      struct aiclass_flow *f, unsigned int idx)
{
	aiclass_class_account(q, f->cls, -f->qlen, -f->backlog, -f->mem);
	aiclass_flow_unlink(q, f);
	aiclass_flow_link(q, f, idx);
	aiclass_class_account(q, idx, f->qlen, f->backlog, f->mem);
	q->stats.flows_moved++;
}

/* Empty a slot for a new flow: no burst, no memory, fresh CoDel state. */
static void aiclass_flow_claim(struct aiclass_flow *f, u32 key)
{
	f->key = key;
	f->burst = 0;
	f->session = 0;
	f->level = 0;
	f->flags = 0;
	/* codel_vars_init(), which the compiler leaves out of line */
	memset(&f->cvars, 0, sizeof(f->cvars));
}

/* Is the flow in this empty slot over: quiet for idle, and for forget if
 * it was an elephant?  A slot whose flow is over is the first to take.
 */
static __always_inline bool aiclass_flow_over(const struct aiclass_sched_data *q,
					      const struct aiclass_flow *f,
					      u32 quiet)
{
	return quiet >= q->idle &&
	       (f->level != AICLASS_LEVEL_TRAIN || quiet >= q->forget);
}

/* The empty slot of the set from f that aiclass_flow_find_set() claims,
 * ranked by over, then quiet (see there); NULL if none is empty.
 */
static noinline struct aiclass_flow *
aiclass_flow_rank(const struct aiclass_sched_data *q, struct aiclass_flow *f,
		  u64 now)
{
	struct aiclass_flow *end = f + AICLASS_FLOW_WAYS, *free = NULL;
	u64 rank, best = 0;
	u32 quiet;

	for (; f < end; f++) {
		if (f->qlen)
			continue;
		/* Over before not over, then quiet longest, in one compare;
		 * the 1 ranks every empty slot above none.
		 */
		quiet = aiclass_flow_quiet(f, now);
		rank = ((u64)aiclass_flow_over(q, f, quiet) << 32 | quiet) + 1;
		if (rank > best) {
			best = rank;
			free = f;
		}
	}
	return free;
}

/* The slot of the flow with this key, in the set the key names: the slot
 * tagged with the key; else, for an auto flow, the home slot while it
 * queues packets of flows without a slot of their own, and for a placed
 * packet its class's spill queue while that holds packets (so that none of
 * them is reordered); else an empty slot, claimed: the home slot when its
 * flow is over, else the slot whose flow is over that was quiet longest,
 * else the one quiet longest (a remembered elephant in its compute phase
 * goes after every finished flow); else the spill queue or the home slot,
 * shared.  One pass over the set, after the home slot, where most flows
 * live, missed.
 *
 * The pass ranks the empty slots by quiet alone, in 32 bits for a slot
 * stamped within 2^32 of now (the 40-bit quiet for one that was not): the
 * first slot quiet longest is also the first over slot quiet longest when
 * it is over, and when it is quiet for less than idle no slot is over, nor
 * is the home slot.  Only a remembered elephant quiet longest, past idle
 * but not forget, leaves it to aiclass_flow_rank().
 */
static noinline struct aiclass_flow *
aiclass_flow_find_set(const struct aiclass_sched_data *q,
		      struct aiclass_flow *flows, u32 mask, u32 key,
		      struct aiclass_flow *spill, u64 now)
{
	struct aiclass_flow *set = &flows[key & mask & ~(AICLASS_FLOW_WAYS - 1)];
	struct aiclass_flow *home = &flows[key & mask], *free = NULL;
	struct aiclass_flow *f, *end = set + AICLASS_FLOW_WAYS;
	u32 quiet, now_lo = now;
	u8 now_hi = now >> 32;
	s64 most = -1;

	for (f = set; f < end; f++) {
		if (f->key == key)
			return f;
		if (f->qlen)
			continue;
		if (unlikely(check_sub_overflow(now_lo, f->tstamp, &quiet) ||
			     f->tstamp_hi != now_hi))
			quiet = aiclass_flow_quiet(f, now);
		if (quiet > most) {
			most = quiet;
			free = f;
		}
	}
	if (most >= q->idle && !aiclass_flow_over(q, free, most))
		free = aiclass_flow_rank(q, set, now);
	if (spill) {
		if (spill->qlen || (spill->flags & AICLASS_FLOW_DOWN) || !free)
			return spill;
	} else if (home->flags & AICLASS_FLOW_SHARED) {
		return home;
	}
	if (most >= q->idle && !home->qlen &&
	    aiclass_flow_over(q, home, aiclass_flow_quiet(home, now)))
		free = home;
	if (!free) {
		home->flags |= AICLASS_FLOW_SHARED;
		return home;
	}
	aiclass_flow_claim(free, key);
	return free;
}

static struct aiclass_flow *
aiclass_flow_find(const struct aiclass_sched_data *q, struct aiclass_flow *flows,
		  u32 mask, u32 key, struct aiclass_flow *spill, u64 now)
{
	struct aiclass_flow *home = &flows[key & mask];

	if (likely(home->key == key))
		return home;
	return aiclass_flow_find_set(q, flows, mask, key, spill, now);
}

/* A flow's packets are a list on skb->next; its head's prev is the tail,
 * which saves a tail pointer in every slot.
 */
static struct sk_buff *aiclass_flow_tail(const struct aiclass_flow *f)
{
	return f->head->prev;
}

/* Append backlogged flow from's queue, in order, to flow to's (linked in
 * class idx if empty), and leave from empty and out of every list.
 */
static void aiclass_flow_splice(struct aiclass_sched_data *q,
				struct aiclass_flow *from, struct aiclass_flow *to,
				unsigned int idx)
{
	unsigned int cls = from->cls;

	aiclass_class_account(q, cls, -from->qlen, -from->backlog, -from->mem);
	aiclass_flow_unlink(q, from);
	if (!to->qlen) {
		aiclass_flow_link(q, to, idx);
		to->head = from->head;
	} else {
		aiclass_flow_tail(to)->next = from->head;
		to->head->prev = from->head->prev;
	}
	aiclass_class_account(q, to->cls, from->qlen, from->backlog, from->mem);
	to->qlen += from->qlen;
	to->backlog += from->backlog;
	to->mem += from->mem;
	from->head = NULL;
	from->qlen = 0;
	from->backlog = 0;
	from->mem = 0;
	from->flags &= ~AICLASS_FLOW_SHARED;
}

/* Append skb, len bytes and mem of truesize, to flow f, which is in class
 * idx or empty (linked there now).
 */
static __always_inline void aiclass_flow_add(struct aiclass_sched_data *q,
					     struct aiclass_flow *f,
					     unsigned int idx,
					     struct sk_buff *skb,
					     unsigned int len, unsigned int mem)
{
	if (!f->qlen) {
		aiclass_flow_link(q, f, idx);
		f->head = skb;		/* an empty flow has no head */
	} else {
		aiclass_flow_tail(f)->next = skb;
	}
	f->head->prev = skb;
	skb->next = NULL;
	f->qlen++;
	f->backlog += len;
	f->mem += mem;
	aiclass_class_account(q, idx, 1, len, mem);
}

/* Take the head packet off a flow; the caller fixes the qdisc counters. */
static __always_inline struct sk_buff *
aiclass_flow_pop(struct aiclass_sched_data *q, struct aiclass_flow *f)
{
	struct sk_buff *skb = f->head;
	unsigned int len = qdisc_pkt_len(skb);
	unsigned int mem = aiclass_cb(skb)->mem;

	f->head = skb->next;
	if (f->head)
		f->head->prev = skb->prev;
	skb_mark_not_on_list(skb);
	skb->prev = NULL;
	f->qlen--;
	f->backlog -= len;
	f->mem -= mem;
	aiclass_class_account(q, f->cls, -1, -len, -mem);
	if (!f->qlen) {
		f->flags &= ~AICLASS_FLOW_SHARED;
		aiclass_flow_unlink(q, f);
	}
	return skb;
}

static void aiclass_qdisc_account(struct Qdisc *sch, struct sk_buff *skb,
				  int dir)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);

	sch->q.qlen += dir;
	if (dir > 0)
		qdisc_qstats_backlog_inc(sch, skb);
	else
		qdisc_qstats_backlog_dec(sch, skb);
	q->memory_used += dir * (int)aiclass_cb(skb)->mem;
}

/* Drop the head packet of flow f, counted against the drop reason. */
static void aiclass_drop_head(struct Qdisc *sch, struct aiclass_flow *f,
			      u64 *reason, struct sk_buff **to_free)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	struct aiclass_class *cl = &q->classes[f->cls];
	struct sk_buff *skb = aiclass_flow_pop(q, f);

	aiclass_qdisc_account(sch, skb, -1);
	if (!f->qlen)
		aiclass_flow_drained(f);
	cl->qstats.drops++;
	(*reason)++;
	qdisc_qstats_drop(sch);
	if (to_free)
		__qdisc_drop(skb, to_free);
	else
		rtnl_kfree_skbs(skb, skb);
}

/* The training flow with the largest backlog for its class's weight, so
 * that overflow does not starve a heavy class; linear in backlogged
 * training flows, amortised by dropping a batch each time (as fq_codel).
 */
static struct aiclass_flow *aiclass_fattest_training(struct aiclass_sched_data *q)
{
	unsigned long train = q->backlogged & ~AICLASS_LAT_MASK;
	struct aiclass_class *cl, *fat_cl = NULL;
	struct aiclass_flow *f, *fat = NULL;
	unsigned int idx;

	for_each_set_bit(idx, &train, AICLASS_MAX_CLASSES) {
		cl = &q->classes[idx];
		list_for_each_entry(f, &cl->flows, flowchain)
			if (!fat || (u64)f->backlog * fat_cl->quantum >
				    (u64)fat->backlog * cl->quantum) {
				fat = f;
				fat_cl = cl;
			}
	}
	return fat;
}

/* Would pkts more packets of mem bytes of truesize overflow a limit? */
static bool aiclass_full(struct Qdisc *sch, u32 pkts, u32 mem)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);

	return sch->q.qlen + pkts > q->cfg.limit ||
	       q->memory_used + mem > q->cfg.memory_limit;
}

static u64 *aiclass_limit_reason(struct aiclass_sched_data *q, u32 mem)
{
	return q->memory_used + mem > q->cfg.memory_limit ?
	       &q->stats.drop_memory : &q->stats.drop_overlimit;
}

/* Make room for pkts packets of mem bytes by dropping from the fattest
 * training flow: half its backlog, at most AICLASS_DROP_BATCH packets and
 * AICLASS_DROP_BATCH_BYTES; then from the next fattest while still short.
 * Returns the first victim flow.
 */
static struct aiclass_flow *aiclass_drop_training(struct Qdisc *sch,
						  u32 pkts, u32 mem,
						  struct sk_buff **to_free)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	struct aiclass_flow *f, *first = NULL;
	unsigned int dropped, target, n;

	while (aiclass_full(sch, pkts, mem) && q->train_qlen) {
		f = aiclass_fattest_training(q);
		if (!first)
			first = f;
		target = min_t(u32, f->backlog / 2, AICLASS_DROP_BATCH_BYTES);
		dropped = 0;
		n = 0;
		do {
			dropped += qdisc_pkt_len(f->head);
			aiclass_drop_head(sch, f, aiclass_limit_reason(q, mem),
					  to_free);
		} while (f->qlen && dropped < target &&
			 ++n < AICLASS_DROP_BATCH);
	}
	return first;
}

/* Classification */

/* What aiclass reads of an IP packet, once: what the flow hash (when the
 * skb has none) and routes 4 and 5 need.
 */
struct aiclass_hdr {
	u32		src;	/* address, or an IPv6 address's hash */
	u32		dst;
	unsigned int	thoff;	/* transport header offset */
	__be16		sport;
	__be16		dport;
	u8		dscp;
	u8		proto;	/* 0 for a fragment */
	bool		ok;	/* an IPv4 or IPv6 header was read */
	bool		ports;	/* and the ports after it */
};

/* skb_protocol(skb, true) of a VLAN-tagged packet, out of line: its
 * walk over the tags reads them into a buffer on the stack.
 */
static noinline __be16 aiclass_vlan_protocol(struct sk_buff *skb)
{
	return skb_protocol(skb, true);
}

/* skb_header_pointer() for a header the linear part does not hold: a copy
 * in q->hdr_copy, or NULL.
 */
static noinline void *aiclass_header_copy(struct aiclass_sched_data *q,
					  const struct sk_buff *skb,
					  int offset, int len)
{
	return skb_header_pointer(skb, offset, len, &q->hdr_copy);
}

/* skb_header_pointer() into *p, false for NULL: the packet's own bytes
 * when its linear part holds them, which are never NULL.
 */
static __always_inline bool aiclass_header(struct aiclass_sched_data *q,
					   const struct sk_buff *skb,
					   int offset, int len, const void **p)
{
	if (likely((int)skb_headlen(skb) - offset >= len)) {
		*p = skb->data + offset;
		return true;
	}
	*p = aiclass_header_copy(q, skb, offset, len);
	return *p;
}

/* Read the IP header, and the ports of the transport protocols that start
 * with them (not of a fragment).
 */
static __always_inline void aiclass_parse(struct aiclass_sched_data *q,
					  struct sk_buff *skb,
					  struct aiclass_hdr *h)
{
	unsigned int thoff = skb_network_offset(skb);
	__be16 proto = skb->protocol;
	const __be16 *ports;

	h->ok = false;
	if (unlikely(eth_type_vlan(proto)))
		proto = aiclass_vlan_protocol(skb);
	switch (proto) {
	case htons(ETH_P_IP): {
		const struct iphdr *iph;

		if (!aiclass_header(q, skb, thoff, sizeof(*iph),
				    (const void **)&iph) ||
		    iph->ihl < 5)
			return;
		h->dscp = ipv4_get_dsfield(iph) >> 2;
		h->proto = ip_is_fragment(iph) ? 0 : iph->protocol;
		h->src = (__force u32)iph->saddr;
		h->dst = (__force u32)iph->daddr;
		thoff += iph->ihl * 4;
		break;
	}
	case htons(ETH_P_IPV6): {
		const struct ipv6hdr *ip6h;

		if (!aiclass_header(q, skb, thoff, sizeof(*ip6h),
				    (const void **)&ip6h))
			return;
		h->dscp = ipv6_get_dsfield(ip6h) >> 2;
		h->proto = ip6h->nexthdr;
		h->src = ipv6_addr_hash(&ip6h->saddr);
		h->dst = ipv6_addr_hash(&ip6h->daddr);
		thoff += sizeof(*ip6h);
		break;
	}
	default:
		return;
	}

	h->ports = false;
	h->dport = 0;
	switch (h->proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
	case IPPROTO_DCCP:
		if (aiclass_header(q, skb, thoff, 2 * sizeof(*ports),
				   (const void **)&ports)) {
			h->sport = ports[0];
			h->dport = ports[1];
			h->ports = true;
		}
		break;
	}
	h->thoff = thoff;
	h->ok = true;
}

/* The flow hash when the skb has none: of the addresses, protocol and
 * ports aiclass_parse() read, keyed by a random seed per qdisc so that a
 * sender cannot aim its flows at one queue.  The flow dissector's for the
 * rest: fragments, tunnels (it tells their inner flows apart), not IP.
 */
static u32 aiclass_hash(const struct aiclass_sched_data *q,
			struct sk_buff *skb, const struct aiclass_hdr *h)
{
	if (!h->ok || !h->ports)
		return skb_get_hash(skb);
	return jhash_3words(h->src, h->dst,
			    ((__force u32)h->sport << 16) ^
			    (__force u32)h->dport,
			    q->hash_seed ^ h->proto);
}

/* Routes 4 and 5, from what aiclass_parse() read: the DSCP, and for RoCEv2
 * the class its BTH opcode names.  Returns a class index, or
 * AICLASS_CLASSIFY_AUTO.
 */
static unsigned int aiclass_classify_ip(struct aiclass_sched_data *q,
					struct sk_buff *skb,
					const struct aiclass_hdr *h)
{
	const struct aiclass_config *cfg = &q->cfg;
	unsigned int idx;
	u8 *op;

	if (!h->ok)
		return AICLASS_CLASSIFY_AUTO;
	if (q->dscpmap_set && cfg->dscpmap[h->dscp] != AICLASS_DSCPMAP_AUTO) {
		idx = aiclass_minor_to_idx(cfg, cfg->dscpmap[h->dscp]);
		if (idx < AICLASS_MAX_CLASSES) {
			q->stats.route[AICLASS_ROUTE_DSCPMAP]++;
			return idx;
		}
	}

	if (!cfg->roce_port || h->proto != IPPROTO_UDP ||
	    h->dport != htons(cfg->roce_port))
		return AICLASS_CLASSIFY_AUTO;

	/* The first byte of the base transport header is the opcode. */
	q->stats.route[AICLASS_ROUTE_ROCE]++;
	op = skb_header_pointer(skb, h->thoff + sizeof(struct udphdr),
				sizeof(*op), &q->hdr_copy.op);
	if (op && (*op == AICLASS_ROCE_CNP || *op == AICLASS_ROCE_RC_ACK ||
		   *op == AICLASS_ROCE_RC_AACK))
		return 0;
	return aiclass_default_idx(cfg);
}

/* Route 2, the tc filters: out of line, as most qdiscs have none. */
static noinline unsigned int
aiclass_classify_filter(struct sk_buff *skb, struct Qdisc *sch,
			struct tcf_proto *fl)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	struct tcf_result res;
	unsigned int idx;
	int result;

	result = aiclass_tcf_classify(skb, fl, &res);
	switch (result) {
	case TC_ACT_STOLEN:
	case TC_ACT_QUEUED:
	case TC_ACT_TRAP:
		q->stats.stolen++;
		return AICLASS_CLASSIFY_STOLEN;
	case TC_ACT_SHOT:
		q->stats.drop_filter++;
		return AICLASS_CLASSIFY_DROP;
	}
	if (result < 0)
		return AICLASS_CLASSIFY_AUTO;
	idx = AICLASS_MAX_CLASSES;
	if (TC_H_MAJ(res.classid) == 0 || TC_H_MAJ(res.classid) == sch->handle)
		idx = aiclass_minor_to_idx(&q->cfg, TC_H_MIN(res.classid));
	if (idx >= AICLASS_MAX_CLASSES)
		return AICLASS_CLASSIFY_AUTO;
	q->stats.route[AICLASS_ROUTE_FILTER]++;
	return idx;
}

/* Routes 1 to 3: a class index, AICLASS_CLASSIFY_AUTO (routes 4 to 6
 * decide), or AICLASS_CLASSIFY_DROP or _STOLEN.
 */
static unsigned int aiclass_classify(struct sk_buff *skb, struct Qdisc *sch)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	const struct aiclass_config *cfg = &q->cfg;
	u32 prio = skb->priority;
	struct tcf_proto *fl;
	unsigned int idx;
	u8 minor;

	if (TC_H_MAJ(prio) == sch->handle) {
		idx = aiclass_minor_to_idx(cfg, TC_H_MIN(prio));
		if (idx < AICLASS_MAX_CLASSES) {
			q->stats.route[AICLASS_ROUTE_PRIORITY]++;
			return idx;
		}
	}

	fl = rcu_dereference_bh(q->filter_list);
	if (fl) {
		idx = aiclass_classify_filter(skb, sch, fl);
		if (idx != AICLASS_CLASSIFY_AUTO)
			return idx;
	}

	if (!q->priomap_set)
		return AICLASS_CLASSIFY_AUTO;
	minor = cfg->priomap[TC_H_MAJ(prio) ? 0 : prio & TC_PRIO_MAX];
	if (minor != AICLASS_PRIOMAP_AUTO) {
		idx = aiclass_minor_to_idx(cfg, minor);
		if (idx < AICLASS_MAX_CLASSES) {
			q->stats.route[AICLASS_ROUTE_PRIOMAP]++;
			return idx;
		}
	}

	return AICLASS_CLASSIFY_AUTO;
}

/* The burst of flow f ended: it joins the flow's session, in session units
 * rounded at random (up by the fraction of a unit left over), so that the
 * count is exact on average however short the bursts are.
 */
static void aiclass_session_add(const struct aiclass_sched_data *q,
				struct aiclass_flow *f)
{
	u32 units = f->burst / q->session_unit;

	if (reciprocal_scale(get_random_u32(), q->session_unit) <
	    f->burst - units * q->session_unit)
		units++;
	f->session = min_t(u32, f->session + units, U8_MAX);
}

/* The auto route's last step: flow f is an elephant. */
static unsigned int aiclass_auto_train(struct aiclass_sched_data *q,
				       struct aiclass_flow *f)
{
	f->level = AICLASS_LEVEL_TRAIN;
	q->stats.demotions++;
	return aiclass_default_idx(&q->cfg);
}

/* Route 6, auto: account a packet of len bytes to the burst of the flow in
 * slot f and return the class the burst has reached.  A flow counts by what
 * it queues: a packet that finds less than a quantum of its flow waiting
 * adds nothing, so a flow that never queues (a ping-pong, a token stream,
 * heartbeats) keeps its band however much it sends, as fq_codel's and
 * cake's sparse flows keep theirs, while a burst that outruns the link
 * counts nearly whole.
 *
 * A burst ends at a quiet of idle, but the flow's session only at a quiet
 * of session_gap (AICLASS_SESSION_GAP idles, or forget if shorter): a
 * flow whose session has queued AICLASS_SESSION_ELEPHANTS elephants is
 * training however its bursts were cut.  A sender that loses its CPU for
 * longer than idle (a descheduled thread or vCPU, a stalled hop before
 * this one) cuts a bulk flow into bursts that each stay below elephant,
 * the qdisc draining it between them; an RPC connection pauses for longer
 * than session_gap before its responses queue that much.  The session
 * keeps its earlier bursts in a byte, in 1/AICLASS_SESSION_UNITS of an
 * elephant (aiclass_session_add()), which keeps the slot at 80 bytes.
 */
static unsigned int aiclass_auto_class(struct aiclass_sched_data *q,
				       struct aiclass_flow *f,
				       unsigned int len, u64 now)
{
	const struct aiclass_config *cfg = &q->cfg;
	unsigned int last = cfg->lat_bands - 1;
	u32 quiet = aiclass_flow_quiet(f, now);

	if (!f->qlen && quiet > q->idle) {
		if (quiet > q->session_gap)
			f->session = 0;
		else if (f->burst)
			aiclass_session_add(q, f);
		/* A new burst: an elephant stays training unless it was
		 * quiet for forget (a collective's compute phase, a bulk
		 * flow's ACK-clocked gaps); any other flow starts again in
		 * the top band.  A remembered elephant whose last burst
		 * queued nothing has no burst but still its level: forget
		 * applies to it too.
		 */
		if (f->burst || f->level) {
			if (f->level == AICLASS_LEVEL_TRAIN &&
			    quiet < q->forget &&
			    (!(f->flags & AICLASS_FLOW_DOWN) ||
			     f->burst > cfg->elephant)) {
				q->stats.remembered++;
			} else {
				f->level = 0;
				q->stats.idle_resets++;
			}
			f->flags &= ~AICLASS_FLOW_DOWN;
			f->burst = 0;
		}
	}
	if (f->backlog >= cfg->quantum)
		f->burst = min_t(u64, (u64)f->burst + len, U32_MAX);
	if (f->level == AICLASS_LEVEL_TRAIN)
		return aiclass_default_idx(cfg);
	if ((u64)f->session * q->session_unit + f->burst >
	    (u64)cfg->elephant * AICLASS_SESSION_ELEPHANTS)
		return aiclass_auto_train(q, f);

	if (f->level > last)
		f->level = last;	/* lat_bands shrank */
	while (f->level < last && f->burst > cfg->thresholds[f->level]) {
		f->level++;
		q->stats.demotions++;
	}
	if (f->level == last && f->burst > cfg->elephant)
		return aiclass_auto_train(q, f);
	return f->level;
}

/* The key of an explicitly placed packet's queue: its flow hash and its
 * class, so that it never shares a queue with its flow's packets in
 * another class.
 */
static u32 aiclass_placed_key(u32 hash, unsigned int idx)
{
	return hash ^ ((idx + 1) * GOLDEN_RATIO_32);
}

/* Latency SLO
 *
 * A band with an SLO keeps its promise for the traffic that fits, as
 * Aequitas (SIGCOMM'22) does at the RPC layer: it counts the packets that
 * leave it within and after the SLO, and in every window (AICLASS_SLO_WINDOWS
 * SLOs) where more than 1 in AICLASS_SLO_BUDGET was late, raises the
 * probability of a downgrade by a step; in a window that meets it, lowers it
 * by a quarter.  A downgrade moves a flow, with its whole queue in order,
 * one class lower (the next band; from the last band the default training
 * class, with slo_training), where its next packets follow it while it
 * queues there (an auto flow: until its burst ends).  It takes flows that
 * queue: a packet is a candidate only if its flow holds a quantum and its
 * share of the band's queue, so small RPCs, which never queue, keep their
 * place.  Two rules act before the count does, on the wait a packet
 * would have: the band's backlog at the time per byte it was served while
 * backlogged (what the link, the guard's turns for training and the bands
 * above left it, measured over the last window).  A packet that would
 * wait past the SLO goes lower at once, whatever its flow: it would be
 * late here.  Once the band has missed its SLO lately, a candidate goes
 * at once when it would wait 3/4 of the SLO.  Below capacity neither
 * fires: bursts that meet the SLO do not look like overload.  A packet
 * that left late takes the rest of its flow's queue with it at once, if it
 * came after the last such downgrade: the packets queued before it are
 * late whatever follows, the ones after it show whether the band still
 * carries more than its SLO allows.
 */

/* The class band idx downgrades into, or idx when there is none. */
static unsigned int aiclass_slo_next(const struct aiclass_sched_data *q,
				     unsigned int idx)
{
	if (idx + 1 < q->cfg.lat_bands)
		return idx + 1;
	return q->cfg.slo_training ? aiclass_default_idx(&q->cfg) : idx;
}

/* Downgrade flow f, in band idx, and return the class it goes to.  The
 * caller moves its queue, and its next packets follow that queue; an auto
 * flow's level also stays there until its burst ends (AICLASS_LEVEL_TRAIN:
 * the default training class).  A placed flow comes back when its queue
 * has drained: nothing of it waits in the lower class to be overtaken.
 */
static unsigned int aiclass_slo_downgrade(struct aiclass_sched_data *q,
					  struct aiclass_flow *f,
					  unsigned int idx)
{
	unsigned int to = aiclass_slo_next(q, idx);

	if (to == idx)
		return idx;
	f->level = aiclass_is_training(to) ? AICLASS_LEVEL_TRAIN : to;
	f->flags |= AICLASS_FLOW_DOWN;
	q->classes[idx].slo_downgrades++;
	q->stats.slo_downgrades++;
	return to;
}

/* How long a packet would wait behind band cl's queue, at the time per
 * byte the band was served while backlogged.
 */
static codel_time_t aiclass_slo_wait(const struct aiclass_class *cl)
{
	return min_t(u64, (u64)cl->backlog * cl->slo_byte_time >> 16, U32_MAX);
}

/* The class of a packet of flow f bound for band idx, which has an SLO. */
static noinline unsigned int aiclass_slo_admit(struct aiclass_sched_data *q,
					       struct aiclass_flow *f,
					       unsigned int idx)
{
	const struct aiclass_class *cl = &q->classes[idx];
	codel_time_t wait = aiclass_slo_wait(cl);

	/* The packet would wait for the band's queue at the rate the band
	 * was served while backlogged: past the SLO, it goes lower whatever
	 * its flow, and no packet of the band is ahead of it there.  Into
	 * an empty band every packet goes, which also renews the estimate.
	 */
	if (wait > cl->slo)
		return aiclass_slo_downgrade(q, f, idx);
	if (!f->qlen || f->cls != idx || f->backlog < q->cfg.quantum ||
	    (u64)f->backlog * cl->nflows < cl->backlog)
		return idx;
	/* Only a band that has missed its SLO lately (a late packet in this
	 * window, or a probability left from one) sheds the flows that
	 * queue early: below capacity, bursts that meet can still come near
	 * the SLO now and then.
	 */
	if (!cl->slo_prob && !cl->slo_late)
		return idx;
	if (wait > cl->slo - cl->slo / AICLASS_SLO_HEADROOM ||
	    get_random_u32() < cl->slo_prob)
		return aiclass_slo_downgrade(q, f, idx);
	return idx;
}

/* The class of a placed packet bound for band idx's spill queue f, which
 * arrived at now (ns): idx, or the class below.  The spill queue mixes the
 * flows whose set was full, so no flow of it can be told to go: in a band
 * with an SLO, a packet that would wait past it goes to the next class's
 * spill queue, and every later one follows while the last that went is
 * still queued there (also once the SLO is off), so that none of these
 * flows is reordered.  That queue is in order of arrival but for a spliced
 * queue, whose packets all came earlier: the last one sent is queued while
 * the head came no later.  Into a training class (slo_training), where the
 * guard can serve it before the band, the band's spill queue goes first.
 */
static noinline unsigned int
aiclass_spill_admit(struct aiclass_sched_data *q, struct aiclass_flow *f,
		    unsigned int idx, u64 now)
{
	struct aiclass_class *cl = &q->classes[idx];
	unsigned int to = aiclass_slo_next(q, idx);
	struct aiclass_flow *low = &q->classes[to].spill;

	if (to == idx) {
		f->flags &= ~AICLASS_FLOW_DOWN;
		return idx;
	}
	if (!(f->flags & AICLASS_FLOW_DOWN) || !low->qlen ||
	    aiclass_cb(low->head)->enqueue_time > cl->spill_down) {
		f->flags &= ~AICLASS_FLOW_DOWN;
		if (!(q->slo_mask & BIT(idx)) ||
		    aiclass_slo_wait(cl) <= cl->slo)
			return idx;
		f->flags |= AICLASS_FLOW_DOWN;
		cl->slo_downgrades++;
		q->stats.slo_downgrades++;
		if (f->qlen && aiclass_is_training(to))
			aiclass_flow_splice(q, f, low, to);
	}
	cl->spill_down = now;
	return to;
}

/* Start band cl's next window: nothing counted yet. */
static void aiclass_slo_window_clear(struct aiclass_class *cl)
{
	cl->slo_pkts = 0;
	cl->slo_late = 0;
	cl->slo_busy = 0;
	cl->slo_busy_bytes = 0;
}

/* A packet of flow f, len bytes, left band idx after sojourn, at now
 * (codel time).
 */
static noinline void aiclass_slo_account(struct aiclass_sched_data *q,
					 struct aiclass_flow *f,
					 unsigned int idx, unsigned int len,
					 codel_time_t sojourn, codel_time_t now)
{
	struct aiclass_class *cl = &q->classes[idx];
	codel_time_t busy = now - cl->slo_last;
	unsigned int to;

	/* The band's service time per byte, from departures while it stays
	 * backlogged (this packet was queued at the last one): what the
	 * link, the guard's turns for training and the bands above leave
	 * it.
	 */
	if (busy <= sojourn) {
		cl->slo_busy += busy;
		cl->slo_busy_bytes += len;
	}
	cl->slo_last = now;
	cl->slo_pkts++;
	if (sojourn <= cl->slo) {
		cl->slo_met++;
	} else {
		cl->slo_missed++;
		cl->slo_late++;
		if (f->qlen &&
		    codel_time_after_eq(now - sojourn, cl->slo_next) &&
		    !(f->flags & (AICLASS_FLOW_SHARED | AICLASS_FLOW_SPILL))) {
			to = aiclass_slo_downgrade(q, f, idx);
			if (to != idx)
				aiclass_flow_move(q, f, to);
			cl->slo_next = now;
		}
	}
	if (codel_time_before(now, cl->slo_start + cl->slo_window))
		return;
	if (cl->slo_late * AICLASS_SLO_BUDGET > cl->slo_pkts)
		cl->slo_prob = cl->slo_prob > U32_MAX - AICLASS_SLO_STEP ?
			       U32_MAX : cl->slo_prob + AICLASS_SLO_STEP;
	else if (codel_time_before(now, cl->slo_start + 2 * cl->slo_window))
		cl->slo_prob -= cl->slo_prob >> AICLASS_SLO_DECAY;
	else
		cl->slo_prob = 0;	/* the band was idle: nothing late */
	/* A band that no longer queues renews no estimate: let it age, or
	 * one slow stretch would keep the band shedding packets for good.
	 */
	if (cl->slo_busy_bytes)
		cl->slo_byte_time = min_t(u64, div_u64((u64)cl->slo_busy << 16,
						       cl->slo_busy_bytes),
					  U32_MAX);
	else
		cl->slo_byte_time >>= 1;
	cl->slo_start = now;
	aiclass_slo_window_clear(cl);
}

/* Forget what band cl measured: a new start, or no SLO. */
static void aiclass_slo_clear(struct aiclass_class *cl)
{
	cl->slo_prob = 0;
	cl->slo_byte_time = 0;
	aiclass_slo_window_clear(cl);
}

/* Band idx's SLO from the configuration; off past lat_bands. */
static void aiclass_slo_derive(struct aiclass_sched_data *q, unsigned int idx)
{
	struct aiclass_class *cl = &q->classes[idx];
	u32 us = idx < q->cfg.lat_bands ? q->cfg.slos[idx] : 0;

	cl->slo = aiclass_us_to_codel(us);
	cl->slo_window = max(cl->slo * AICLASS_SLO_WINDOWS,
			     (codel_time_t)(AICLASS_SLO_MIN_WINDOW >>
					    CODEL_SHIFT));
	if (us) {
		q->slo_mask |= BIT(idx);
	} else {
		q->slo_mask &= ~BIT(idx);
		aiclass_slo_clear(cl);
	}
}

/* Enqueue */

/* Queue skb, of the flow in slot f, in class idx within the limits.  With
 * cn, a packet whose own flow paid for its room is reported to the parents
 * with NET_XMIT_CN; else every victim is taken off the parents' counts.
 */
static __always_inline int
aiclass_enqueue_skb(struct Qdisc *sch, struct sk_buff *skb,
		    struct aiclass_flow *f, unsigned int idx, u64 now,
		    bool shared, bool cn, struct sk_buff **to_free)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	struct aiclass_class *cl = &q->classes[idx];
	unsigned int len = qdisc_pkt_len(skb);
	unsigned int prev_qlen, prev_backlog, mem;
	struct aiclass_flow *victim = NULL;

	if (!aiclass_is_training(idx) && cl->qlen >= q->cfg.lat_limit) {
		q->stats.drop_band++;
		cl->qstats.drops++;
		return qdisc_drop(skb, sch, to_free);
	}
	if (unlikely(aiclass_full(sch, 1, skb->truesize))) {
		/* Latency traffic takes precedence: a packet is refused
		 * only when the latency side alone leaves no room for it;
		 * otherwise training makes room, so the limits hold at
		 * every instant.
		 */
		if (sch->q.qlen - q->train_qlen + 1 > q->cfg.limit) {
			q->stats.drop_overlimit++;
			cl->qstats.drops++;
			return qdisc_drop(skb, sch, to_free);
		}
		if (q->memory_used - q->train_mem + skb->truesize >
		    q->cfg.memory_limit) {
			q->stats.drop_memory++;
			cl->qstats.drops++;
			return qdisc_drop(skb, sch, to_free);
		}
		prev_qlen = sch->q.qlen;
		prev_backlog = sch->qstats.backlog;
		victim = aiclass_drop_training(sch, 1, skb->truesize, to_free);
		prev_qlen -= sch->q.qlen;
		prev_backlog -= sch->qstats.backlog;
	}

	mem = skb->truesize;
	aiclass_cb(skb)->enqueue_time = now;
	aiclass_cb(skb)->mem = mem;
	/* The drops may have emptied the slot, and with it its mark. */
	if (unlikely(shared))
		f->flags |= AICLASS_FLOW_SHARED;
	if (f->qlen && f->cls != idx)
		aiclass_flow_move(q, f, idx);
	aiclass_flow_add(q, f, idx, skb, len, mem);
	/* aiclass_qdisc_account(sch, skb, 1), from what is known here */
	sch->q.qlen++;
	sch->qstats.backlog += len;
	q->memory_used += mem;
	if (likely(!victim))
		return NET_XMIT_SUCCESS;

	/* Tell the parents.  When this packet's own flow paid, say so with
	 * NET_XMIT_CN: the parents then do not count the packet, so one
	 * fewer drop is reported to them.
	 */
	if (cn && victim == f) {
		qdisc_tree_reduce_backlog(sch, prev_qlen - 1,
					  prev_backlog - len);
		return NET_XMIT_CN;
	}
	qdisc_tree_reduce_backlog(sch, prev_qlen, prev_backlog);
	return NET_XMIT_SUCCESS;
}

/* Below 1 Gbit/s a GSO packet would hold the link for longer than a
 * latency packet should wait: queue its segments instead (as sch_cake).
 */
static noinline int aiclass_enqueue_segs(struct Qdisc *sch,
					 struct sk_buff *skb,
					 struct aiclass_flow *f,
					 unsigned int idx, u64 now,
					 bool shared,
					 struct sk_buff **to_free)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	netdev_features_t features = netif_skb_features(skb);
	unsigned int len = qdisc_pkt_len(skb), slen = 0, nsegs = 0, seglen;
	struct sk_buff *segs, *nskb;

	segs = skb_gso_segment(skb, features & ~NETIF_F_GSO_MASK);
	if (IS_ERR_OR_NULL(segs))
		return qdisc_drop(skb, sch, to_free);

	skb_list_walk_safe(segs, segs, nskb) {
		skb_mark_not_on_list(segs);
		seglen = segs->len;
		qdisc_skb_cb(segs)->pkt_len = seglen;
		if (aiclass_enqueue_skb(sch, segs, f, idx, now, shared, false,
					to_free) == NET_XMIT_SUCCESS) {
			nsegs++;
			slen += seglen;
		}
	}
	q->stats.gso_split++;
	consume_skb(skb);
	if (!nsegs)
		return NET_XMIT_DROP;
	/* The parents count one packet of len bytes. */
	qdisc_tree_reduce_backlog(sch, 1 - nsegs, len - slen);
	return NET_XMIT_SUCCESS;
}

static int aiclass_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			   struct sk_buff **to_free)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	unsigned int idx, len = qdisc_pkt_len(skb);
	struct aiclass_flow *f;
	struct aiclass_hdr h;
	unsigned int to;
	bool shared;
	u32 hash, key;
	u64 now, now_t;
	int ret;

	idx = aiclass_classify(skb, sch);
	if (unlikely(idx >= AICLASS_CLASSIFY_DROP)) {
		ret = NET_XMIT_SUCCESS | __NET_XMIT_STOLEN;
		if (idx == AICLASS_CLASSIFY_DROP) {
			ret = NET_XMIT_SUCCESS | __NET_XMIT_BYPASS;
			qdisc_qstats_drop(sch);
		}
		__qdisc_drop(skb, to_free);
		return ret;
	}

	/* One read of the IP header serves routes 4 and 5 and the flow key,
	 * aiclass's own hash of the 5-tuple: TCP picks a new skb->hash for
	 * its socket after a timeout, and a flow keyed by it would start
	 * again in 1:1, ahead of its own queued packets.
	 */
	aiclass_parse(q, skb, &h);
	if (idx == AICLASS_CLASSIFY_AUTO && q->parse_ip)
		idx = aiclass_classify_ip(q, skb, &h);
	hash = aiclass_hash(q, skb, &h);

	now = ktime_get_ns();
	now_t = now >> CODEL_SHIFT;
	if (idx == AICLASS_CLASSIFY_AUTO) {
		key = hash;
		f = aiclass_flow_find(q, q->flows, q->flows_mask, key, NULL,
				      now_t);
		q->stats.route[AICLASS_ROUTE_AUTO]++;
		idx = aiclass_auto_class(q, f, len, now_t);
	} else {
		key = aiclass_placed_key(hash, idx);
		f = aiclass_flow_find(q, q->flows, q->flows_mask, key,
				      &q->classes[idx].spill, now_t);
	}
	aiclass_flow_stamp(f, now_t);
	/* A packet in a slot it shares follows the queue it finds there
	 * (a placed packet shares only its own class's spill queue), and
	 * only an auto flow's own demotion moves its queue.
	 */
	shared = f->key != key;
	if (unlikely(shared)) {
		q->stats.flows_shared++;
		if (f->qlen)
			idx = f->cls;
	} else if (key != hash && f->qlen) {
		idx = f->cls;
	}
	if (unlikely(f->flags & AICLASS_FLOW_SPILL)) {
		to = aiclass_spill_admit(q, f, idx, now);
		if (to != idx) {
			f = &q->classes[to].spill;
			idx = to;
		}
	} else if (unlikely(q->slo_mask) && (q->slo_mask & BIT(idx)) &&
		   !shared) {
		idx = aiclass_slo_admit(q, f, idx);
	}

	if (q->split_gso && skb_is_gso(skb))
		return aiclass_enqueue_segs(sch, skb, f, idx, now, shared,
					    to_free);
	return aiclass_enqueue_skb(sch, skb, f, idx, now, shared, true,
				   to_free);
}

/* Dequeue */

static struct aiclass_flow *aiclass_pick_flow(struct aiclass_sched_data *q,
					      struct aiclass_class *cl)
{
	struct aiclass_flow *f;

	for (;;) {
		f = list_first_entry(&cl->flows, struct aiclass_flow, flowchain);
		if (f->deficit > 0)
			return f;
		f->deficit += q->cfg.quantum;
		list_move_tail(&f->flowchain, &cl->flows);
	}
}

/* Deficit round robin over the backlogged training classes, as
 * drr_dequeue(): the class at the head of the list goes on while it has
 * deficit left, then takes a quantum and goes to the tail.
 */
static struct aiclass_class *aiclass_pick_training(struct aiclass_sched_data *q)
{
	struct aiclass_class *cl;

	for (;;) {
		cl = list_first_entry(&q->train_active, struct aiclass_class,
				      alist);
		if (cl->deficit > 0)
			return cl;
		cl->deficit += cl->quantum;
		list_move_tail(&cl->alist, &q->train_active);
	}
}

/* codel_dequeue() callbacks: take the head of the flow whose CoDel state
 * vars is, and drop a packet CoDel gave up on (counted by the caller).
 */
static __always_inline struct sk_buff *
aiclass_codel_pop(struct codel_vars *vars, void *ctx)
{
	struct aiclass_flow *f = container_of(vars, struct aiclass_flow, cvars);
	struct Qdisc *sch = ctx;
	struct sk_buff *skb;

	if (!f->qlen)
		return NULL;
	skb = aiclass_flow_pop(qdisc_priv(sch), f);
	aiclass_qdisc_account(sch, skb, -1);
	return skb;
}

static void aiclass_codel_drop(struct sk_buff *skb, void *ctx)
{
	kfree_skb(skb);
	qdisc_qstats_drop((struct Qdisc *)ctx);
}

static void aiclass_sojourn(struct aiclass_class *cl, u64 sojourn)
{
	cl->sojourn_avg = cl->sojourn_avg - (cl->sojourn_avg >> 3) +
			  (sojourn >> 3);
	if (sojourn > cl->sojourn_max)
		cl->sojourn_max = sojourn;
}

/* Count what codel_dequeue() did to class cl: drops more packets dropped,
 * and the marks it left in q->cstats (taken).  The qdisc's own drop count
 * and the parents' backlog are settled once per dequeue.
 */
static void aiclass_aqm_count(struct aiclass_sched_data *q,
			      struct aiclass_class *cl, u32 drops)
{
	struct codel_stats *cs = &q->cstats;

	cl->qstats.drops += drops;
	cl->aqm_drops += drops;
	cl->aqm_marks += cs->ecn_mark;
	cl->ce_marks += cs->ce_mark;
	q->stats.aqm_marks += cs->ecn_mark;
	q->stats.ce_marks += cs->ce_mark;
	cs->ecn_mark = 0;
	cs->ce_mark = 0;
}

/* The next packet, out of line: see aiclass_dequeue().  CoDel's drops
 * are left in q->cstats for aiclass_report_drops(), which the caller runs
 * once the packet is where the parents will look for it.
 */
static noinline struct sk_buff *aiclass_dequeue_backlog(struct Qdisc *sch)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	const struct aiclass_config *cfg = &q->cfg;
	struct codel_stats *cs = &q->cstats;
	struct sk_buff *skb = NULL;
	u32 drops = cs->drop_count;
	struct aiclass_class *cl;
	struct aiclass_flow *f;
	unsigned int len, segs, band = 0;
	u64 now = 0;
	bool lat, train;

	/* Without a shaper, CoDel's own clock read tells the time: see the
	 * sojourn below.
	 */
	if (cfg->rate) {
		now = ktime_get_ns();
		if (now < q->t_next) {
			q->stats.throttled++;
			qdisc_qstats_overlimit(sch);
			qdisc_watchdog_schedule_ns(&q->watchdog, q->t_next);
			return NULL;
		}
	}

	do {
		lat = q->backlogged & AICLASS_LAT_MASK;
		train = q->train_qlen;
		if (unlikely(train)) {
			if (lat && cfg->train_share &&
			    q->guard >= (s64)cfg->train_share * cfg->burst) {
				q->stats.guard_yields++;
				lat = false;
			}
		} else if (!lat) {
			break;
		}
		if (lat) {
			band = __ffs(q->backlogged);
			cl = &q->classes[band];
		} else {
			cl = aiclass_pick_training(q);
		}
		f = aiclass_pick_flow(q, cl);

		skb = codel_dequeue(sch, &sch->qstats.backlog,
				    &q->cparams[!lat], &f->cvars, cs,
				    qdisc_pkt_len, aiclass_skb_time,
				    aiclass_codel_drop, aiclass_codel_pop);
		if (!f->qlen) {
			aiclass_flow_drained(f);
			aiclass_flow_stamp(f, skb ? (aiclass_cb(skb)->enqueue_time >>
						     CODEL_SHIFT) + f->cvars.ldelay :
						    ktime_get_ns() >> CODEL_SHIFT);
		}
		if (unlikely(cs->drop_count != drops ||
			     (cs->ecn_mark | cs->ce_mark))) {
			aiclass_aqm_count(q, cl, cs->drop_count - drops);
			drops = cs->drop_count;
		}
	} while (!skb);

	if (!skb)
		return NULL;

	len = qdisc_pkt_len(skb);
	f->deficit -= len;
	if (lat) {
		/* The guard is never negative, and a latency packet leaves
		 * the training backlog as it was.
		 */
		if (train)
			q->guard += (s64)cfg->train_share * len;
		else
			q->guard = 0;
	} else {
		cl->deficit -= len;
		q->guard -= (s64)(100 - cfg->train_share) * len;
		if (q->guard < 0 || !q->train_qlen)
			q->guard = 0;
	}

	/* CoDel left the packet's sojourn in ldelay, from the time it read
	 * in codel_dequeue(): no second clock read per packet.
	 */
	aiclass_sojourn(cl, (u64)f->cvars.ldelay << CODEL_SHIFT);
	if (cfg->rate)
		q->t_next = max(q->t_next, now > q->shaper_slack_ns ?
					   now - q->shaper_slack_ns : 0) +
			    (((u64)len * q->rate_ns) >> q->rate_shft);

	/* bstats_update() and qdisc_bstats_update(), skb_shinfo() read once */
	segs = skb_is_gso(skb) ? skb_shinfo(skb)->gso_segs : 1;
	_bstats_update(&cl->bstats, len, segs);
	_bstats_update(&sch->bstats, len, segs);
	if (unlikely(q->slo_mask) && lat && (q->slo_mask & BIT(band)))
		aiclass_slo_account(q, f, band, len, f->cvars.ldelay,
				    aiclass_skb_time(skb) + f->cvars.ldelay);
	return skb;
}

/* Tell the parents about the packets CoDel dropped.  When the last of them
 * leaves sch empty, qdisc_tree_reduce_backlog() has the parents deactivate
 * this class of theirs: after a peek it must see the peeked packet counted
 * (as fq_codel_peek()), or a parent that peeks (hfsc, qfq) loses track of
 * a child that still holds a packet.
 */
static void aiclass_report_drops(struct Qdisc *sch)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	struct codel_stats *cs = &q->cstats;

	if (likely(!cs->drop_count))
		return;
	q->stats.drop_aqm += cs->drop_count;
	qdisc_tree_reduce_backlog(sch, cs->drop_count, cs->drop_len);
	cs->drop_count = 0;
	cs->drop_len = 0;
}

/* The parent asks again after every packet until it gets none: the empty
 * answer costs no more than this test.
 */
static struct sk_buff *aiclass_dequeue(struct Qdisc *sch)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;

	/* sch->q.qlen also counts packets requeued in sch->gso_skb. */
	if (!q->backlogged)
		return NULL;
	skb = aiclass_dequeue_backlog(sch);
	aiclass_report_drops(sch);
	return skb;
}

static struct sk_buff *aiclass_peek(struct Qdisc *sch)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb = skb_peek(&sch->gso_skb);

	if (skb || !q->backlogged)
		return skb;
	skb = aiclass_dequeue_backlog(sch);
	if (skb) {
		__skb_queue_head(&sch->gso_skb, skb);
		/* still part of the queue */
		qdisc_qstats_backlog_inc(sch, skb);
		sch->q.qlen++;
	}
	aiclass_report_drops(sch);
	return skb;
}

/* Reset, configuration */

static void aiclass_purge(struct Qdisc *sch)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	struct aiclass_flow *f;
	unsigned int i;

	for (i = 0; i < AICLASS_MAX_CLASSES; i++) {
		struct aiclass_class *cl = &q->classes[i];

		while (!list_empty(&cl->flows)) {
			f = list_first_entry(&cl->flows, struct aiclass_flow,
					     flowchain);
			rtnl_kfree_skbs(f->head, aiclass_flow_tail(f));
			f->head = NULL;
			f->qlen = 0;
			f->backlog = 0;
			f->mem = 0;
			f->flags &= ~AICLASS_FLOW_SHARED;
			aiclass_flow_drained(f);
			list_del_init(&f->flowchain);
		}
		list_del_init(&cl->alist);
		cl->nflows = 0;
		cl->qlen = 0;
		cl->backlog = 0;
		cl->deficit = 0;
	}
	q->backlogged = 0;
	q->train_qlen = 0;
	q->train_mem = 0;
	q->memory_used = 0;
	q->guard = 0;
	sch->q.qlen = 0;
	sch->qstats.backlog = 0;
}

/* A flow table of n empty slots that remember nothing. */
static void aiclass_flows_init(struct aiclass_flow *flows, u32 n)
{
	u32 i;

	memset(flows, 0, n * sizeof(*flows));
	for (i = 0; i < n; i++)
		INIT_LIST_HEAD(&flows[i].flowchain);
}

static void aiclass_reset(struct Qdisc *sch)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	unsigned int i;

	if (!q->flows)		/* init failed */
		return;
	aiclass_purge(sch);
	aiclass_flows_init(q->flows, q->flows_mask + 1);
	for (i = 0; i < AICLASS_MAX_CLASSES; i++) {
		q->classes[i].sojourn_avg = 0;
		q->classes[i].sojourn_max = 0;
		aiclass_slo_clear(&q->classes[i]);
	}
	q->t_next = 0;
	qdisc_watchdog_cancel(&q->watchdog);
}

static struct aiclass_flow *aiclass_flows_alloc(u32 n)
{
	struct aiclass_flow *flows;

	flows = kvcalloc(n, sizeof(*flows), GFP_KERNEL);
	if (flows)
		aiclass_flows_init(flows, n);
	return flows;
}

static int aiclass_parse_u32_list(const struct nlattr *nest, int type,
				  const struct nla_policy *policy,
				  u32 *vals, unsigned int max,
				  unsigned int *count,
				  struct netlink_ext_ack *extack)
{
	struct nlattr *attr;
	unsigned int n = 0;
	int rem, err;

	err = nla_validate_nested(nest, TCA_AICLASS_MAX, policy, extack);
	if (err)
		return err;
	nla_for_each_nested(attr, nest, rem) {
		if (nla_type(attr) != type) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "Unexpected attribute in list");
			return -EINVAL;
		}
		if (n >= max) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "Too many values in list");
			return -EINVAL;
		}
		vals[n++] = nla_get_u32(attr);
	}
	*count = n;
	return 0;
}

static void aiclass_default_thresholds(struct aiclass_config *cfg)
{
	unsigned int i, n = cfg->lat_bands - 1;

	/* Halve from the elephant threshold down: with 3 bands and a 256 KB
	 * elephant, bursts up to 64 KB stay in 1:1 and up to 128 KB in 1:2.
	 */
	for (i = 0; i < n; i++)
		cfg->thresholds[i] = cfg->elephant >> (n - i);
}

/* Every entry of a priomap or dscpmap is auto or a live class. */
static bool aiclass_map_valid(const struct aiclass_config *cfg, const u8 *map,
			      unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (map[i] != AICLASS_PRIOMAP_AUTO &&
		    aiclass_minor_to_idx(cfg, map[i]) >= AICLASS_MAX_CLASSES)
			return false;
	return true;
}

/* Apply the request in tb to cfg, then check that cfg is consistent. */
static int aiclass_stage(struct nlattr **tb, struct aiclass_config *cfg,
			 struct netlink_ext_ack *extack)
{
	u32 vals[AICLASS_MAX_TRAIN_CLASSES];
	bool derive = false;
	unsigned int i, n;
	int err;

	if (tb[TCA_AICLASS_LAT_BANDS]) {
		n = nla_get_u8(tb[TCA_AICLASS_LAT_BANDS]);
		derive |= n != cfg->lat_bands;
		cfg->lat_bands = n;
	}
	if (tb[TCA_AICLASS_TRAIN_CLASSES])
		cfg->train_classes = nla_get_u8(tb[TCA_AICLASS_TRAIN_CLASSES]);
	if (tb[TCA_AICLASS_ELEPHANT]) {
		n = nla_get_u32(tb[TCA_AICLASS_ELEPHANT]);
		derive |= n != cfg->elephant;
		cfg->elephant = n;
	}
	if (tb[TCA_AICLASS_WEIGHTS]) {
		err = aiclass_parse_u32_list(tb[TCA_AICLASS_WEIGHTS],
					     TCA_AICLASS_WEIGHT,
					     aiclass_weight_policy, vals,
					     AICLASS_MAX_TRAIN_CLASSES, &n,
					     extack);
		if (err)
			return err;
		if (!n || n > cfg->train_classes) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_AICLASS_WEIGHTS],
					    "Need 1 to train_classes weights");
			return -EINVAL;
		}
		memcpy(cfg->weights, vals, n * sizeof(u32));
	}
	if (tb[TCA_AICLASS_THRESHOLDS]) {
		err = aiclass_parse_u32_list(tb[TCA_AICLASS_THRESHOLDS],
					     TCA_AICLASS_THRESHOLD,
					     aiclass_threshold_policy, vals,
					     AICLASS_MAX_LAT_BANDS - 1, &n,
					     extack);
		if (err)
			return err;
		if (n != cfg->lat_bands - 1) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_AICLASS_THRESHOLDS],
					    "Need exactly lat_bands - 1 thresholds");
			return -EINVAL;
		}
		memcpy(cfg->thresholds, vals, n * sizeof(u32));
	} else if (derive) {
		aiclass_default_thresholds(cfg);
	}
	if (tb[TCA_AICLASS_SLOS]) {
		err = aiclass_parse_u32_list(tb[TCA_AICLASS_SLOS],
					     TCA_AICLASS_SLO, aiclass_slo_policy,
					     vals, AICLASS_MAX_LAT_BANDS, &n,
					     extack);
		if (err)
			return err;
		if (!n || n > cfg->lat_bands) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_AICLASS_SLOS],
					    "Need 1 to lat_bands SLOs");
			return -EINVAL;
		}
		for (i = 0; i < n; i++) {
			if (!aiclass_slo_valid(vals[i])) {
				NL_SET_ERR_MSG_ATTR(extack, tb[TCA_AICLASS_SLOS],
						    "An SLO is 0 (off) or 10us to 1s");
				return -EINVAL;
			}
		}
		memcpy(cfg->slos, vals, n * sizeof(u32));
	}
	if (tb[TCA_AICLASS_SLO_TRAINING])
		cfg->slo_training = nla_get_u8(tb[TCA_AICLASS_SLO_TRAINING]);
	for (i = 0; i + 1 < cfg->lat_bands; i++) {
		if (cfg->thresholds[i] < AICLASS_MIN_THRESHOLD ||
		    (i && cfg->thresholds[i] <= cfg->thresholds[i - 1]) ||
		    cfg->thresholds[i] >= cfg->elephant) {
			NL_SET_ERR_MSG_MOD(extack,
					   "Thresholds must rise strictly, from 64 bytes up to below elephant");
			return -EINVAL;
		}
	}

	if (tb[TCA_AICLASS_BURST])
		cfg->burst = nla_get_u32(tb[TCA_AICLASS_BURST]);
	if (tb[TCA_AICLASS_TRAIN_SHARE])
		cfg->train_share = nla_get_u8(tb[TCA_AICLASS_TRAIN_SHARE]);
	if (tb[TCA_AICLASS_IDLE])
		cfg->idle = nla_get_u32(tb[TCA_AICLASS_IDLE]);
	if (tb[TCA_AICLASS_FORGET])
		cfg->forget = nla_get_u32(tb[TCA_AICLASS_FORGET]);
	if (tb[TCA_AICLASS_FLOWS]) {
		n = nla_get_u32(tb[TCA_AICLASS_FLOWS]);
		if (!is_power_of_2(n)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_AICLASS_FLOWS],
					    "flows must be a power of two");
			return -EINVAL;
		}
		cfg->flows = n;
	}
	if (tb[TCA_AICLASS_LIMIT])
		cfg->limit = nla_get_u32(tb[TCA_AICLASS_LIMIT]);
	if (tb[TCA_AICLASS_MEMORY_LIMIT])
		cfg->memory_limit = nla_get_u32(tb[TCA_AICLASS_MEMORY_LIMIT]);
	if (tb[TCA_AICLASS_CE_THRESHOLD])
		cfg->ce_threshold = nla_get_u32(tb[TCA_AICLASS_CE_THRESHOLD]);
	if (tb[TCA_AICLASS_RATE]) {
		cfg->rate = nla_get_u64(tb[TCA_AICLASS_RATE]);
		if (cfg->rate && cfg->rate < AICLASS_MIN_RATE) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_AICLASS_RATE],
					    "rate must be 0 (off) or at least 64 bytes/s (512bit)");
			return -EINVAL;
		}
	}
	if (tb[TCA_AICLASS_ROCE_PORT])
		cfg->roce_port = nla_get_u16(tb[TCA_AICLASS_ROCE_PORT]);
	if (tb[TCA_AICLASS_LAT_LIMIT])
		cfg->lat_limit = nla_get_u32(tb[TCA_AICLASS_LAT_LIMIT]);
	if (tb[TCA_AICLASS_QUANTUM])
		cfg->quantum = nla_get_u32(tb[TCA_AICLASS_QUANTUM]);
	if (tb[TCA_AICLASS_TARGET])
		cfg->target = nla_get_u32(tb[TCA_AICLASS_TARGET]);
	if (tb[TCA_AICLASS_INTERVAL])
		cfg->interval = nla_get_u32(tb[TCA_AICLASS_INTERVAL]);
	if (cfg->target >= cfg->interval) {
		NL_SET_ERR_MSG_MOD(extack, "target must be below interval");
		return -EINVAL;
	}
	if (tb[TCA_AICLASS_ECN])
		cfg->ecn = nla_get_u8(tb[TCA_AICLASS_ECN]);
	if (tb[TCA_AICLASS_SPLIT_GSO])
		cfg->split_gso = nla_get_u8(tb[TCA_AICLASS_SPLIT_GSO]);
	if (tb[TCA_AICLASS_DEFAULT_CLASS])
		cfg->default_class = nla_get_u8(tb[TCA_AICLASS_DEFAULT_CLASS]);
	if (aiclass_minor_to_idx(cfg, cfg->default_class) >=
	    AICLASS_MAX_CLASSES) {
		NL_SET_ERR_MSG_MOD(extack,
				   "default_class must be one of the training classes");
		return -EINVAL;
	}
	if (tb[TCA_AICLASS_PRIOMAP])
		memcpy(cfg->priomap, nla_data(tb[TCA_AICLASS_PRIOMAP]),
		       AICLASS_PRIOMAP_LEN);
	if (tb[TCA_AICLASS_DSCPMAP])
		memcpy(cfg->dscpmap, nla_data(tb[TCA_AICLASS_DSCPMAP]),
		       AICLASS_DSCPMAP_LEN);
	if (!aiclass_map_valid(cfg, cfg->priomap, AICLASS_PRIOMAP_LEN)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "priomap names a class that does not exist");
		return -EINVAL;
	}
	if (!aiclass_map_valid(cfg, cfg->dscpmap, AICLASS_DSCPMAP_LEN)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "dscpmap names a class that does not exist");
		return -EINVAL;
	}
	return 0;
}

/* Under the tree lock: packets in classes that no longer exist move to the
 * lowest latency band or to the default training class; a spill queue's
 * join the spill queue there, behind what it holds.
 */
static void aiclass_rehome_classes(struct aiclass_sched_data *q)
{
	const struct aiclass_config *cfg = &q->cfg;
	struct aiclass_flow *f;
	unsigned int i, to;

	for (i = 0; i < AICLASS_MAX_CLASSES; i++) {
		if (aiclass_minor_to_idx(cfg, aiclass_idx_to_minor(i)) == i)
			continue;
		to = aiclass_is_training(i) ? aiclass_default_idx(cfg) :
					      cfg->lat_bands - 1;
		while (!list_empty(&q->classes[i].flows)) {
			f = list_first_entry(&q->classes[i].flows,
					     struct aiclass_flow, flowchain);
			if (f->flags & AICLASS_FLOW_SPILL)
				aiclass_flow_splice(q, f, &q->classes[to].spill,
						    to);
			else
				aiclass_flow_move(q, f, to);
		}
	}
}

/* Under the tree lock: move every backlogged flow of the table, its queue
 * whole, to its slot in a new table of n slots (as sch_fq moves flows, not
 * packets): one step per backlogged flow.  Flows that meet in a shared slot
 * keep their order, one queue after the other; spill queues stay.
 */
static void aiclass_rehash(struct aiclass_sched_data *q,
			   struct aiclass_flow *flows, u32 n)
{
	u64 now = ktime_get_ns() >> CODEL_SHIFT;
	struct aiclass_flow *f, *nf, *tmp;
	unsigned int i;
	LIST_HEAD(old);

	for (i = 0; i < AICLASS_MAX_CLASSES; i++)
		list_for_each_entry_safe(f, tmp, &q->classes[i].flows, flowchain)
			if (!(f->flags & AICLASS_FLOW_SPILL))
				list_move_tail(&f->flowchain, &old);

	list_for_each_entry_safe(f, tmp, &old, flowchain) {
		/* Back in its class for the splice to take it out again. */
		list_move_tail(&f->flowchain, &q->classes[f->cls].flows);
		nf = aiclass_flow_find(q, flows, n - 1, f->key, NULL, now);
		if (!nf->qlen) {
			nf->cvars = f->cvars;
			nf->burst = f->burst;
			nf->session = f->session;
			nf->level = f->level;
			nf->flags |= f->flags;
			nf->tstamp = f->tstamp;
			nf->tstamp_hi = f->tstamp_hi;
		}
		aiclass_flow_splice(q, f, nf, f->cls);
	}
	q->flows = flows;
	q->flows_mask = n - 1;
}

/* Is the link slower than 1 Gbit/s?  The shaper's rate, else the
 * device's link speed; a device that tells no speed (dummy, most tunnels)
 * is taken as fast.  Never a measured rate: after an idle gap it reads as
 * a slow link, and every GSO packet of a fast NIC would be split.  Under
 * RTNL, outside the tree lock (a driver may sleep to answer).
 */
static bool aiclass_slow_link(struct Qdisc *sch, u64 rate)
{
	struct ethtool_link_ksettings ks;

	if (rate)
		return rate < AICLASS_SPLIT_GSO_RATE;
	if (__ethtool_get_link_ksettings(qdisc_dev(sch), &ks))
		return false;
	return ks.base.speed != SPEED_UNKNOWN &&
	       ks.base.speed < AICLASS_SPLIT_GSO_SPEED;
}

/* The shaper holds packets back, which a parent that schedules (htb, hfsc,
 * drr, qfq, ets) takes for a class gone empty: say so, the rate belongs to
 * the root (or to an mq's child, which the device's queue dequeues).
 */
static void aiclass_warn_child_rate(struct Qdisc *sch, u64 rate,
				    struct netlink_ext_ack *extack)
{
	struct Qdisc *root;

	if (!rate || sch->parent == TC_H_ROOT)
		return;
	root = rtnl_dereference(qdisc_dev(sch)->qdisc);
	if (TC_H_MAJ(root->handle) == TC_H_MAJ(sch->parent) &&
	    (!strcmp(root->ops->id, "mq") || !strcmp(root->ops->id, "mqprio")))
		return;
	NL_SET_ERR_MSG_MOD(extack,
			   "rate shapes at the root: as a child, aiclass holds back packets its parent expects; let the parent shape");
}

static void aiclass_commit_derived(struct Qdisc *sch, bool slow)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	const struct aiclass_config *cfg = &q->cfg;
	unsigned int i;
	u64 slack;

	for (i = 0; i < AICLASS_MAX_TRAIN_CLASSES; i++)
		q->classes[AICLASS_TRAIN_BASE + i].quantum =
			cfg->weights[i] * cfg->quantum;
	for (i = 0; i < AICLASS_MAX_LAT_BANDS; i++)
		aiclass_slo_derive(q, i);
	q->idle = aiclass_us_to_codel(cfg->idle);
	q->forget = aiclass_us_to_codel(cfg->forget);
	q->session_gap = min_t(u64, (u64)q->idle * AICLASS_SESSION_GAP,
			       q->forget);
	q->session_unit = max_t(u32, cfg->elephant / AICLASS_SESSION_UNITS, 1);
	q->priomap_set = memchr_inv(cfg->priomap, AICLASS_PRIOMAP_AUTO,
				    AICLASS_PRIOMAP_LEN);
	q->dscpmap_set = memchr_inv(cfg->dscpmap, AICLASS_DSCPMAP_AUTO,
				    AICLASS_DSCPMAP_LEN);
	q->parse_ip = cfg->roce_port || q->dscpmap_set;
	q->split_gso = cfg->split_gso && slow;

	for (i = 0; i < ARRAY_SIZE(q->cparams); i++) {
		q->cparams[i].target = aiclass_us_to_codel(cfg->target);
		q->cparams[i].interval = aiclass_us_to_codel(cfg->interval);
		q->cparams[i].ecn = cfg->ecn;
		q->cparams[i].mtu = psched_mtu(qdisc_dev(sch));
	}
	q->cparams[1].ce_threshold = cfg->ce_threshold ?
		aiclass_us_to_codel(cfg->ce_threshold) : CODEL_DISABLED_THRESHOLD;

	/* The shaper's time for len bytes is (len * rate_ns) >> rate_shft,
	 * rate_ns kept below 2^34 so that the product fits (as sch_cake).
	 */
	q->rate_ns = 0;
	q->rate_shft = 0;
	slack = 0;
	if (cfg->rate) {
		q->rate_shft = 34;
		q->rate_ns = div64_u64(NSEC_PER_SEC << 34, cfg->rate);
		while (q->rate_ns >> 34) {
			q->rate_ns >>= 1;
			q->rate_shft--;
		}
		slack = (4ULL * cfg->quantum * q->rate_ns) >> q->rate_shft;
	}
	q->shaper_slack_ns = max_t(u64, slack, AICLASS_SHAPER_SLACK);
	sch->limit = cfg->limit;
}

/* Drop a packet that was requeued in sch->gso_skb by a NETDEV_TX_BUSY
 * driver or a parent's peek; false when there is none.
 */
static bool aiclass_drop_requeued(struct Qdisc *sch, u64 *reason)
{
	struct sk_buff *skb = __skb_dequeue(&sch->gso_skb);

	if (!skb)
		return false;
	sch->q.qlen--;
	qdisc_qstats_backlog_dec(sch, skb);
	qdisc_qstats_drop(sch);
	(*reason)++;
	rtnl_kfree_skbs(skb, skb);
	return true;
}

/* Under the tree lock: drop what the new limits no longer hold, counting
 * on the queues' own counts (sch->q.qlen also counts requeued packets).
 * Bands are trimmed only when lat_limit itself shrank: packets a change
 * moved into a band are kept, and new ones wait until the band is below
 * its limit.
 */
static void aiclass_trim(struct Qdisc *sch, u32 old_lat_limit)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	unsigned int i, qlen = sch->q.qlen, backlog = sch->qstats.backlog;
	struct aiclass_class *cl;
	struct aiclass_flow *f;

	for (i = 0; i < q->cfg.lat_bands && q->cfg.lat_limit < old_lat_limit;
	     i++) {
		cl = &q->classes[i];
		while (cl->qlen > q->cfg.lat_limit) {
			f = list_first_entry(&cl->flows, struct aiclass_flow,
					     flowchain);
			aiclass_drop_head(sch, f, &q->stats.drop_band, NULL);
		}
	}
	/* Training first, a packet from each flow and class in turn: one
	 * step per drop, where the fattest flow would cost a scan each.
	 */
	while (aiclass_full(sch, 0, 0) && q->train_qlen) {
		cl = list_first_entry(&q->train_active, struct aiclass_class,
				      alist);
		f = list_first_entry(&cl->flows, struct aiclass_flow,
				     flowchain);
		aiclass_drop_head(sch, f, aiclass_limit_reason(q, 0), NULL);
		if (f->qlen)
			list_move_tail(&f->flowchain, &cl->flows);
		if (cl->qlen)
			list_move_tail(&cl->alist, &q->train_active);
	}
	while (aiclass_full(sch, 0, 0) && (q->backlogged & AICLASS_LAT_MASK)) {
		cl = &q->classes[__fls(q->backlogged & AICLASS_LAT_MASK)];
		f = list_first_entry(&cl->flows, struct aiclass_flow,
				     flowchain);
		aiclass_drop_head(sch, f, aiclass_limit_reason(q, 0), NULL);
	}
	while (sch->q.qlen > q->cfg.limit &&
	       aiclass_drop_requeued(sch, &q->stats.drop_overlimit))
		;
	qdisc_tree_reduce_backlog(sch, qlen - sch->q.qlen,
				  backlog - sch->qstats.backlog);
}

static int aiclass_change(struct Qdisc *sch, struct nlattr *opt,
			  struct netlink_ext_ack *extack)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_AICLASS_MAX + 1];
	struct aiclass_flow *flows = NULL, *old = NULL;
	struct aiclass_config cfg;
	u32 old_lat_limit;
	bool slow;
	int err;

	if (!opt) {
		NL_SET_ERR_MSG_MOD(extack, "aiclass options are required");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, TCA_AICLASS_MAX, opt, aiclass_policy,
			       extack);
	if (err < 0)
		return err;

	cfg = q->cfg;
	err = aiclass_stage(tb, &cfg, extack);
	if (err)
		return err;

	if (cfg.flows != q->flows_mask + 1) {
		flows = aiclass_flows_alloc(cfg.flows);
		if (!flows) {
			NL_SET_ERR_MSG_MOD(extack,
					   "Cannot allocate the flow table");
			return -ENOMEM;
		}
	}
	slow = aiclass_slow_link(sch, cfg.rate);
	aiclass_warn_child_rate(sch, cfg.rate, extack);

	sch_tree_lock(sch);
	if (cfg.rate != q->cfg.rate) {
		/* A new rate starts from now; kick a queue the old rate held. */
		q->t_next = 0;
		if (sch->q.qlen)
			qdisc_watchdog_schedule_ns(&q->watchdog, ktime_get_ns());
		else
			qdisc_watchdog_cancel(&q->watchdog);
	}
	old_lat_limit = q->cfg.lat_limit;
	q->cfg = cfg;
	aiclass_commit_derived(sch, slow);
	aiclass_rehome_classes(q);
	if (flows) {
		old = q->flows;
		aiclass_rehash(q, flows, cfg.flows);
	}
	aiclass_trim(sch, old_lat_limit);
	sch_tree_unlock(sch);

	kvfree(old);
	return 0;
}

static int aiclass_init(struct Qdisc *sch, struct nlattr *opt,
			struct netlink_ext_ack *extack)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	struct aiclass_config *cfg = &q->cfg;
	unsigned int i;
	int err;

	BUILD_BUG_ON(sizeof(struct aiclass_flow) > 80);
	BUILD_BUG_ON(AICLASS_MAX_LAT_BANDS > AICLASS_LEVEL_TRAIN);
	BUILD_BUG_ON(AICLASS_SESSION_UNITS * AICLASS_SESSION_ELEPHANTS >=
		     U8_MAX);
	BUILD_BUG_ON(AICLASS_MIN_FLOWS % AICLASS_FLOW_WAYS);

	INIT_LIST_HEAD(&q->train_active);
	for (i = 0; i < AICLASS_MAX_CLASSES; i++) {
		struct aiclass_class *cl = &q->classes[i];

		INIT_LIST_HEAD(&cl->flows);
		INIT_LIST_HEAD(&cl->alist);
		INIT_LIST_HEAD(&cl->spill.flowchain);
		cl->spill.flags = AICLASS_FLOW_SPILL;
		codel_vars_init(&cl->spill.cvars);
		gnet_stats_basic_sync_init(&cl->bstats);
	}
	qdisc_watchdog_init(&q->watchdog, sch);
	for (i = 0; i < ARRAY_SIZE(q->cparams); i++)
		codel_params_init(&q->cparams[i]);
	codel_stats_init(&q->cstats);
	q->hash_seed = get_random_u32();

	err = tcf_block_get(&q->block, &q->filter_list, sch, extack);
	if (err)
		return err;

	cfg->lat_bands = AICLASS_DEF_LAT_BANDS;
	cfg->train_classes = AICLASS_DEF_TRAIN_CLASSES;
	for (i = 0; i < AICLASS_MAX_TRAIN_CLASSES; i++)
		cfg->weights[i] = AICLASS_DEF_WEIGHT;
	cfg->burst = AICLASS_DEF_BURST;
	cfg->train_share = AICLASS_DEF_TRAIN_SHARE;
	cfg->elephant = AICLASS_DEF_ELEPHANT;
	aiclass_default_thresholds(cfg);
	cfg->idle = AICLASS_DEF_IDLE;
	cfg->forget = AICLASS_DEF_FORGET;
	cfg->flows = AICLASS_DEF_FLOWS;
	cfg->limit = AICLASS_DEF_LIMIT;
	cfg->memory_limit = AICLASS_DEF_MEMORY_LIMIT;
	cfg->lat_limit = AICLASS_DEF_LAT_LIMIT;
	cfg->quantum = psched_mtu(qdisc_dev(sch));
	cfg->roce_port = AICLASS_DEF_ROCE_PORT;
	cfg->default_class = AICLASS_TRAIN_MINOR_MIN;
	cfg->target = AICLASS_DEF_TARGET;
	cfg->interval = AICLASS_DEF_INTERVAL;
	cfg->ecn = 1;
	cfg->split_gso = 1;

	if (opt) {
		/* Stage on the defaults so that a bad request fails whole. */
		struct nlattr *tb[TCA_AICLASS_MAX + 1];

		err = nla_parse_nested(tb, TCA_AICLASS_MAX, opt,
				       aiclass_policy, extack);
		if (err < 0)
			return err;
		err = aiclass_stage(tb, cfg, extack);
		if (err)
			return err;
	}
	cfg->quantum = clamp_t(u32, cfg->quantum, AICLASS_MIN_QUANTUM,
			       AICLASS_MAX_QUANTUM);

	q->flows = aiclass_flows_alloc(cfg->flows);
	if (!q->flows) {
		NL_SET_ERR_MSG_MOD(extack, "Cannot allocate the flow table");
		return -ENOMEM;
	}
	q->flows_mask = cfg->flows - 1;
	aiclass_warn_child_rate(sch, cfg->rate, extack);
	aiclass_commit_derived(sch, aiclass_slow_link(sch, cfg->rate));
	return 0;
}

static void aiclass_destroy(struct Qdisc *sch)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);

	tcf_block_put(q->block);
	qdisc_watchdog_cancel(&q->watchdog);
	if (q->flows)
		aiclass_purge(sch);
	kvfree(q->flows);
	q->flows = NULL;
}

/* Dumps */

static int aiclass_put_list(struct sk_buff *skb, int nest_type, int type,
			    const u32 *vals, unsigned int n)
{
	struct nlattr *nest = nla_nest_start(skb, nest_type);
	unsigned int i;

	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < n; i++)
		if (nla_put_u32(skb, type, vals[i]))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* Runs under RTNL, as every change of q->cfg does. */
static int aiclass_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	const struct aiclass_config *cfg = &q->cfg;
	struct nlattr *opts;

	opts = nla_nest_start(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;

	if (nla_put_u8(skb, TCA_AICLASS_LAT_BANDS, cfg->lat_bands) ||
	    nla_put_u8(skb, TCA_AICLASS_TRAIN_CLASSES, cfg->train_classes) ||
	    aiclass_put_list(skb, TCA_AICLASS_WEIGHTS, TCA_AICLASS_WEIGHT,
			     cfg->weights, cfg->train_classes) ||
	    nla_put_u32(skb, TCA_AICLASS_BURST, cfg->burst) ||
	    nla_put_u8(skb, TCA_AICLASS_TRAIN_SHARE, cfg->train_share) ||
	    aiclass_put_list(skb, TCA_AICLASS_THRESHOLDS,
			     TCA_AICLASS_THRESHOLD, cfg->thresholds,
			     cfg->lat_bands - 1) ||
	    nla_put_u32(skb, TCA_AICLASS_ELEPHANT, cfg->elephant) ||
	    nla_put_u32(skb, TCA_AICLASS_IDLE, cfg->idle) ||
	    nla_put_u32(skb, TCA_AICLASS_FLOWS, cfg->flows) ||
	    nla_put_u32(skb, TCA_AICLASS_LIMIT, cfg->limit) ||
	    nla_put_u32(skb, TCA_AICLASS_MEMORY_LIMIT, cfg->memory_limit) ||
	    nla_put_u32(skb, TCA_AICLASS_CE_THRESHOLD, cfg->ce_threshold) ||
	    nla_put_u64_64bit(skb, TCA_AICLASS_RATE, cfg->rate,
			      TCA_AICLASS_PAD) ||
	    nla_put_u16(skb, TCA_AICLASS_ROCE_PORT, cfg->roce_port) ||
	    nla_put(skb, TCA_AICLASS_PRIOMAP, AICLASS_PRIOMAP_LEN,
		    cfg->priomap) ||
	    nla_put_u8(skb, TCA_AICLASS_DEFAULT_CLASS, cfg->default_class) ||
	    nla_put_u32(skb, TCA_AICLASS_LAT_LIMIT, cfg->lat_limit) ||
	    nla_put_u32(skb, TCA_AICLASS_QUANTUM, cfg->quantum) ||
	    nla_put_u32(skb, TCA_AICLASS_TARGET, cfg->target) ||
	    nla_put_u32(skb, TCA_AICLASS_INTERVAL, cfg->interval) ||
	    nla_put_u8(skb, TCA_AICLASS_ECN, cfg->ecn) ||
	    nla_put_u32(skb, TCA_AICLASS_FORGET, cfg->forget) ||
	    nla_put(skb, TCA_AICLASS_DSCPMAP, AICLASS_DSCPMAP_LEN,
		    cfg->dscpmap) ||
	    nla_put_u8(skb, TCA_AICLASS_SPLIT_GSO, cfg->split_gso) ||
	    nla_put_u8(skb, TCA_AICLASS_SLO_TRAINING, cfg->slo_training))
		goto nla_put_failure;
	/* SLOs only when a band has one: most qdiscs have none. */
	if (memchr_inv(cfg->slos, 0, cfg->lat_bands * sizeof(u32)) &&
	    aiclass_put_list(skb, TCA_AICLASS_SLOS, TCA_AICLASS_SLO, cfg->slos,
			     cfg->lat_bands))
		goto nla_put_failure;

	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

/* Stats dumps run without the qdisc lock: they copy under it (as sch_fq). */
static int aiclass_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	static const int route_attr[AICLASS_ROUTE_MAX] = {
		[AICLASS_ROUTE_PRIORITY] = TCA_AICLASS_STATS_CLS_PRIORITY,
		[AICLASS_ROUTE_FILTER]	 = TCA_AICLASS_STATS_CLS_FILTER,
		[AICLASS_ROUTE_PRIOMAP]	 = TCA_AICLASS_STATS_CLS_PRIOMAP,
		[AICLASS_ROUTE_DSCPMAP]	 = TCA_AICLASS_STATS_CLS_DSCPMAP,
		[AICLASS_ROUTE_ROCE]	 = TCA_AICLASS_STATS_CLS_ROCE,
		[AICLASS_ROUTE_AUTO]	 = TCA_AICLASS_STATS_CLS_AUTO,
	};
	struct aiclass_sched_data *q = qdisc_priv(sch);
	u32 active_flows, memory_used;
	struct nlattr *app, *nest;
	struct aiclass_stats st;
	unsigned int i;

	sch_tree_lock(sch);
	st = q->stats;
	active_flows = 0;
	for (i = 0; i < AICLASS_MAX_CLASSES; i++)
		active_flows += q->classes[i].nflows;
	memory_used = q->memory_used;
	sch_tree_unlock(sch);

	app = nla_nest_start_noflag(d->skb, TCA_STATS_APP);
	if (!app)
		return -1;
	nest = nla_nest_start(d->skb, TCA_AICLASS_XSTATS_QDISC);
	if (!nest)
		goto nla_put_failure;

	for (i = 0; i < AICLASS_ROUTE_MAX; i++)
		if (nla_put_u64_64bit(d->skb, route_attr[i], st.route[i],
				      TCA_AICLASS_STATS_PAD))
			goto nla_put_failure;

#define PUT_U64(attr, val)						\
	nla_put_u64_64bit(d->skb, TCA_AICLASS_STATS_ ## attr, val,	\
			  TCA_AICLASS_STATS_PAD)
	if (PUT_U64(DEMOTIONS, st.demotions) ||
	    PUT_U64(IDLE_RESETS, st.idle_resets) ||
	    PUT_U64(REMEMBERED, st.remembered) ||
	    PUT_U64(GUARD_YIELDS, st.guard_yields) ||
	    PUT_U64(CE_MARKS, st.ce_marks) ||
	    PUT_U64(AQM_MARKS, st.aqm_marks) ||
	    PUT_U64(DROP_AQM, st.drop_aqm) ||
	    PUT_U64(DROP_OVERLIMIT, st.drop_overlimit) ||
	    PUT_U64(DROP_MEMORY, st.drop_memory) ||
	    PUT_U64(DROP_FILTER, st.drop_filter) ||
	    PUT_U64(DROP_BAND, st.drop_band) ||
	    PUT_U64(STOLEN, st.stolen) ||
	    PUT_U64(THROTTLED, st.throttled) ||
	    PUT_U64(FLOWS_MOVED, st.flows_moved) ||
	    PUT_U64(FLOWS_SHARED, st.flows_shared) ||
	    PUT_U64(GSO_SPLIT, st.gso_split) ||
	    PUT_U64(SLO_DOWNGRADES, st.slo_downgrades) ||
	    nla_put_u32(d->skb, TCA_AICLASS_STATS_ACTIVE_FLOWS,
			active_flows) ||
	    nla_put_u32(d->skb, TCA_AICLASS_STATS_MEMORY_USED, memory_used))
		goto nla_put_failure;
#undef PUT_U64

	nla_nest_end(d->skb, nest);
	nla_nest_end(d->skb, app);
	return 0;

nla_put_failure:
	nla_nest_cancel(d->skb, app);
	return -1;
}

/* Classes */

static int aiclass_graft(struct Qdisc *sch, unsigned long arg,
			 struct Qdisc *new, struct Qdisc **old,
			 struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG_MOD(extack,
			   "aiclass classes hold flow queues, not child qdiscs");
	return -EOPNOTSUPP;
}

static struct Qdisc *aiclass_leaf(struct Qdisc *sch, unsigned long arg)
{
	return NULL;
}

static unsigned long aiclass_find(struct Qdisc *sch, u32 classid)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);

	if (aiclass_minor_to_idx(&q->cfg, TC_H_MIN(classid)) >=
	    AICLASS_MAX_CLASSES)
		return 0;
	return TC_H_MIN(classid);
}

static int aiclass_class_change(struct Qdisc *sch, u32 classid, u32 parentid,
				struct nlattr **tca, unsigned long *arg,
				struct netlink_ext_ack *extack)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_AICLASS_CLASS_MAX + 1];
	struct nlattr *opt = tca[TCA_OPTIONS];
	unsigned int idx;
	u32 weight, slo = 0;
	int err;

	if (!*arg) {
		NL_SET_ERR_MSG_MOD(extack,
				   "aiclass classes are fixed: set lat_bands or train_classes on the qdisc");
		return -EOPNOTSUPP;
	}
	idx = aiclass_minor_to_idx(&q->cfg, *arg);
	if (!opt) {
		NL_SET_ERR_MSG_MOD(extack, "aiclass class options are required");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, TCA_AICLASS_CLASS_MAX, opt,
			       aiclass_class_policy, extack);
	if (err < 0)
		return err;
	if (tb[TCA_AICLASS_CLASS_WEIGHT] && !aiclass_is_training(idx)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_AICLASS_CLASS_WEIGHT],
				    "Latency bands are strict priority and have no weight");
		return -EINVAL;
	}
	if (tb[TCA_AICLASS_CLASS_SLO]) {
		if (aiclass_is_training(idx)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_AICLASS_CLASS_SLO],
					    "Training classes are served by weight and have no SLO");
			return -EINVAL;
		}
		slo = nla_get_u32(tb[TCA_AICLASS_CLASS_SLO]);
		if (!aiclass_slo_valid(slo)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_AICLASS_CLASS_SLO],
					    "An SLO is 0 (off) or 10us to 1s");
			return -EINVAL;
		}
	}

	sch_tree_lock(sch);
	if (tb[TCA_AICLASS_CLASS_WEIGHT]) {
		weight = nla_get_u32(tb[TCA_AICLASS_CLASS_WEIGHT]);
		q->cfg.weights[idx - AICLASS_TRAIN_BASE] = weight;
		q->classes[idx].quantum = weight * q->cfg.quantum;
	}
	if (tb[TCA_AICLASS_CLASS_SLO]) {
		q->cfg.slos[idx] = slo;
		aiclass_slo_derive(q, idx);
	}
	sch_tree_unlock(sch);
	return 0;
}

static int aiclass_class_delete(struct Qdisc *sch, unsigned long arg,
				struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG_MOD(extack,
			   "aiclass classes are fixed: set lat_bands or train_classes on the qdisc");
	return -EOPNOTSUPP;
}

static void aiclass_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	unsigned int i;

	if (arg->stop)
		return;
	for (i = 0; i < q->cfg.lat_bands; i++)
		if (!tc_qdisc_stats_dump(sch, AICLASS_LAT_MINOR_MIN + i, arg))
			return;
	for (i = 0; i < q->cfg.train_classes; i++)
		if (!tc_qdisc_stats_dump(sch, AICLASS_TRAIN_MINOR_MIN + i, arg))
			return;
}

static struct tcf_block *aiclass_tcf_block(struct Qdisc *sch,
					   unsigned long cl,
					   struct netlink_ext_ack *extack)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);

	if (cl) {
		NL_SET_ERR_MSG_MOD(extack,
				   "Attach filters to the aiclass qdisc, not to a class");
		return NULL;
	}
	return q->block;
}

static unsigned long aiclass_bind_tcf(struct Qdisc *sch, unsigned long parent,
				      u32 classid)
{
	return aiclass_find(sch, classid);
}

static void aiclass_unbind_tcf(struct Qdisc *sch, unsigned long arg)
{
}

static int aiclass_class_dump(struct Qdisc *sch, unsigned long arg,
			      struct sk_buff *skb, struct tcmsg *tcm)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	unsigned int idx = aiclass_minor_to_idx(&q->cfg, arg);
	struct nlattr *opts;

	if (idx >= AICLASS_MAX_CLASSES)
		return -EINVAL;
	tcm->tcm_parent = TC_H_ROOT;
	tcm->tcm_handle = TC_H_MAKE(sch->handle, arg);
	tcm->tcm_info = 0;

	opts = nla_nest_start(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;
	if (nla_put_u8(skb, TCA_AICLASS_CLASS_KIND,
		       aiclass_is_training(idx) ? AICLASS_KIND_TRAINING :
						  AICLASS_KIND_LATENCY))
		goto nla_put_failure;
	if (aiclass_is_training(idx) ?
	    nla_put_u32(skb, TCA_AICLASS_CLASS_WEIGHT,
			q->cfg.weights[idx - AICLASS_TRAIN_BASE]) :
	    nla_put_u32(skb, TCA_AICLASS_CLASS_SLO, q->cfg.slos[idx]))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int aiclass_class_dump_stats(struct Qdisc *sch, unsigned long arg,
				    struct gnet_dump *d)
{
	struct aiclass_sched_data *q = qdisc_priv(sch);
	unsigned int idx = aiclass_minor_to_idx(&q->cfg, arg);
	u64 sojourn_avg, sojourn_max, ce_marks, aqm_drops, aqm_marks;
	u64 slo_met, slo_missed, slo_downgrades;
	struct gnet_stats_queue qstats;
	u32 slo, slo_prob;
	struct aiclass_class *cl;
	struct nlattr *app, *nest;
	u32 qlen, active_flows;
	bool training;
	s32 deficit;

	if (idx >= AICLASS_MAX_CLASSES)
		return -1;
	cl = &q->classes[idx];
	training = aiclass_is_training(idx);

	sch_tree_lock(sch);
	qstats = cl->qstats;
	qstats.backlog = cl->backlog;
	qlen = cl->qlen;
	active_flows = cl->nflows;
	deficit = cl->deficit;
	sojourn_avg = cl->sojourn_avg;
	sojourn_max = cl->sojourn_max;
	ce_marks = cl->ce_marks;
	aqm_drops = cl->aqm_drops;
	aqm_marks = cl->aqm_marks;
	slo = training ? 0 : q->cfg.slos[idx];
	slo_met = cl->slo_met;
	slo_missed = cl->slo_missed;
	slo_downgrades = cl->slo_downgrades;
	slo_prob = cl->slo_prob;
	sch_tree_unlock(sch);

	if (gnet_stats_copy_basic(d, NULL, &cl->bstats, true) < 0 ||
	    gnet_stats_copy_queue(d, NULL, &qstats, qlen) < 0)
		return -1;

	app = nla_nest_start_noflag(d->skb, TCA_STATS_APP);
	if (!app)
		return -1;
	nest = nla_nest_start(d->skb, TCA_AICLASS_XSTATS_CLASS);
	if (!nest)
		goto nla_put_failure;
	if (nla_put_u8(d->skb, TCA_AICLASS_CSTATS_KIND,
		       training ? AICLASS_KIND_TRAINING : AICLASS_KIND_LATENCY) ||
	    nla_put_u32(d->skb, TCA_AICLASS_CSTATS_ACTIVE_FLOWS,
			active_flows) ||
	    nla_put_u32(d->skb, TCA_AICLASS_CSTATS_SOJOURN_AVG,
			min_t(u64, sojourn_avg, U32_MAX)) ||
	    nla_put_u32(d->skb, TCA_AICLASS_CSTATS_SOJOURN_MAX,
			min_t(u64, sojourn_max, U32_MAX)) ||
	    nla_put_u64_64bit(d->skb, TCA_AICLASS_CSTATS_CE_MARKS,
			      ce_marks, TCA_AICLASS_CSTATS_PAD) ||
	    nla_put_u64_64bit(d->skb, TCA_AICLASS_CSTATS_SOJOURN_AVG64,
			      sojourn_avg, TCA_AICLASS_CSTATS_PAD) ||
	    nla_put_u64_64bit(d->skb, TCA_AICLASS_CSTATS_SOJOURN_MAX64,
			      sojourn_max, TCA_AICLASS_CSTATS_PAD) ||
	    nla_put_u64_64bit(d->skb, TCA_AICLASS_CSTATS_AQM_DROPS,
			      aqm_drops, TCA_AICLASS_CSTATS_PAD) ||
	    nla_put_u64_64bit(d->skb, TCA_AICLASS_CSTATS_AQM_MARKS,
			      aqm_marks, TCA_AICLASS_CSTATS_PAD))
		goto nla_put_failure;
	if (training &&
	    (nla_put_u32(d->skb, TCA_AICLASS_CSTATS_WEIGHT,
			 q->cfg.weights[idx - AICLASS_TRAIN_BASE]) ||
	     nla_put_s32(d->skb, TCA_AICLASS_CSTATS_DEFICIT, deficit)))
		goto nla_put_failure;
	if (slo &&
	    (nla_put_u32(d->skb, TCA_AICLASS_CSTATS_SLO, slo) ||
	     nla_put_u64_64bit(d->skb, TCA_AICLASS_CSTATS_SLO_MET, slo_met,
			       TCA_AICLASS_CSTATS_PAD) ||
	     nla_put_u64_64bit(d->skb, TCA_AICLASS_CSTATS_SLO_MISSED,
			       slo_missed, TCA_AICLASS_CSTATS_PAD) ||
	     nla_put_u64_64bit(d->skb, TCA_AICLASS_CSTATS_SLO_DOWNGRADES,
			       slo_downgrades, TCA_AICLASS_CSTATS_PAD) ||
	     nla_put_u32(d->skb, TCA_AICLASS_CSTATS_SLO_PROB,
			 (u32)(((u64)slo_prob * 1000000) >> 32))))
		goto nla_put_failure;
	nla_nest_end(d->skb, nest);
	nla_nest_end(d->skb, app);
	return 0;

nla_put_failure:
	nla_nest_cancel(d->skb, app);
	return -1;
}

static const struct Qdisc_class_ops aiclass_class_ops = {
	.graft		= aiclass_graft,
	.leaf		= aiclass_leaf,
	.find		= aiclass_find,
	.change		= aiclass_class_change,
	.delete		= aiclass_class_delete,
	.walk		= aiclass_walk,
	.tcf_block	= aiclass_tcf_block,
	.bind_tcf	= aiclass_bind_tcf,
	.unbind_tcf	= aiclass_unbind_tcf,
	.dump		= aiclass_class_dump,
	.dump_stats	= aiclass_class_dump_stats,
};

static struct Qdisc_ops aiclass_qdisc_ops __read_mostly = {
	.cl_ops		= &aiclass_class_ops,
	.id		= "aiclass",
	.priv_size	= sizeof(struct aiclass_sched_data),
	.enqueue	= aiclass_enqueue,
	.dequeue	= aiclass_dequeue,
	.peek		= aiclass_peek,
	.init		= aiclass_init,
	.reset		= aiclass_reset,
	.destroy	= aiclass_destroy,
	.change		= aiclass_change,
	.dump		= aiclass_dump,
	.dump_stats	= aiclass_dump_stats,
	.owner		= THIS_MODULE,
};

AICLASS_MODULE_ALIAS("aiclass");

static int __init aiclass_module_init(void)
{
	return register_qdisc(&aiclass_qdisc_ops);
}

static void __exit aiclass_module_exit(void)
{
	unregister_qdisc(&aiclass_qdisc_ops);
}

module_init(aiclass_module_init);
module_exit(aiclass_module_exit);
MODULE_AUTHOR("The aiclass developers");
MODULE_DESCRIPTION("AI training/inference classifying packet scheduler");
MODULE_LICENSE("GPL");
/* Kbuild passes the project's version (the VERSION file). */
#ifdef AICLASS_VERSION
MODULE_VERSION(AICLASS_VERSION);
#endif
