/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * UAPI of the aiclass qdisc: netlink attributes, stats attributes and
 * limits, shared by the kernel module, the tc plugin (tc/q_aiclass.c) and
 * aiclassctl.
 *
 * aiclass separates AI inference traffic (short RPC bursts, served from
 * strict-priority latency bands 1:1 .. 1:8) from AI training traffic (bulk
 * collectives, served by deficit round robin over training classes
 * 1:11 .. 1:20) without help from the application.
 *
 * This file is append-only: never renumber or change the type of an
 * existing attribute; new attributes go right before the __..._MAX entry.
 */
#ifndef _UAPI_SCH_AICLASS_H
#define _UAPI_SCH_AICLASS_H

#include <linux/types.h>

/* Class ids (minor numbers under the qdisc's handle). */
#define AICLASS_LAT_MINOR_MIN		0x01	/* 1:1 is the highest band */
#define AICLASS_LAT_MINOR_MAX		0x08
#define AICLASS_TRAIN_MINOR_MIN		0x11	/* 1:11 */
#define AICLASS_TRAIN_MINOR_MAX		0x20	/* 1:20 */
#define AICLASS_MAX_LAT_BANDS		8
#define AICLASS_MAX_TRAIN_CLASSES	16
#define AICLASS_MAX_CLASSES	(AICLASS_MAX_LAT_BANDS + AICLASS_MAX_TRAIN_CLASSES)
#define AICLASS_PRIOMAP_LEN		16	/* skb->priority & 15 */
#define AICLASS_PRIOMAP_AUTO		0	/* priomap entry: auto-classify */

/* Defaults and ranges of the qdisc options. */
#define AICLASS_DEF_LAT_BANDS		3
#define AICLASS_DEF_TRAIN_CLASSES	4
#define AICLASS_MIN_WEIGHT		1
#define AICLASS_MAX_WEIGHT		1000
#define AICLASS_DEF_WEIGHT		1
#define AICLASS_DEF_BURST		(64 * 1024)		/* bytes */
#define AICLASS_MIN_BURST		1514			/* bytes */
#define AICLASS_MAX_BURST		(64 * 1024 * 1024)	/* bytes */
#define AICLASS_DEF_TRAIN_SHARE		10			/* percent */
#define AICLASS_MAX_TRAIN_SHARE		90			/* percent */
#define AICLASS_DEF_ELEPHANT		(256 * 1024)		/* bytes */
#define AICLASS_MIN_ELEPHANT		1514			/* bytes */
#define AICLASS_MAX_ELEPHANT		(1024 * 1024 * 1024)	/* bytes */
#define AICLASS_MIN_THRESHOLD		64			/* bytes */
#define AICLASS_DEF_IDLE		10000			/* us */
#define AICLASS_MIN_IDLE		10			/* us */
#define AICLASS_MAX_IDLE		(10 * 1000 * 1000)	/* us */
#define AICLASS_DEF_FLOWS		1024
#define AICLASS_MIN_FLOWS		16
#define AICLASS_MAX_FLOWS		65536			/* power of two */
#define AICLASS_DEF_LIMIT		10240			/* packets */
#define AICLASS_MIN_LIMIT		16			/* packets */
#define AICLASS_MAX_LIMIT		(1024 * 1024)		/* packets */
#define AICLASS_DEF_LAT_LIMIT		1024		/* packets per band */
#define AICLASS_DEF_MEMORY_LIMIT	(32 * 1024 * 1024)	/* bytes */
#define AICLASS_MIN_MEMORY_LIMIT	(64 * 1024)		/* bytes */
#define AICLASS_MAX_MEMORY_LIMIT	0x80000000U		/* bytes, 2 GiB */
#define AICLASS_MAX_CE_THRESHOLD	(10 * 1000 * 1000)	/* us */
#define AICLASS_DEF_ROCE_PORT		4791	/* RoCEv2 UDP port */
#define AICLASS_MIN_QUANTUM		256			/* bytes */
#define AICLASS_MAX_QUANTUM		(1024 * 1024)		/* bytes */
#define AICLASS_DEF_TARGET		5000			/* us, CoDel */
#define AICLASS_MIN_TARGET		10			/* us */
#define AICLASS_MAX_TARGET		(1000 * 1000)		/* us */
#define AICLASS_DEF_INTERVAL		(100 * 1000)		/* us, CoDel */
#define AICLASS_MIN_INTERVAL		100			/* us */
#define AICLASS_MAX_INTERVAL		(10 * 1000 * 1000)	/* us */
#define AICLASS_DEF_FORGET		(10 * 1000 * 1000)	/* us */
#define AICLASS_MAX_FORGET		(3600U * 1000 * 1000)	/* us */
#define AICLASS_DSCPMAP_LEN		64	/* DSCP 0 .. 63 */
#define AICLASS_DSCPMAP_AUTO		0	/* dscpmap entry: next route */
#define AICLASS_MIN_RATE		64			/* bytes/s */
#define AICLASS_MIN_SLO			10			/* us */
#define AICLASS_MAX_SLO			(1000 * 1000)		/* us */

/* Qdisc options: nested in TCA_OPTIONS. */
enum {
	TCA_AICLASS_UNSPEC,
	TCA_AICLASS_LAT_BANDS,		/* u8: latency bands, 1..8 */
	TCA_AICLASS_TRAIN_CLASSES,	/* u8: training classes, 1..16 */
	TCA_AICLASS_WEIGHTS,		/* nest: TCA_AICLASS_WEIGHT per training
					 * class, from 1:11 upward
					 */
	TCA_AICLASS_WEIGHT,		/* u32: DRR weight, 1..1000 */
	TCA_AICLASS_BURST,		/* u32: bytes the latency side may run
					 * ahead while training is backlogged
					 */
	TCA_AICLASS_TRAIN_SHARE,	/* u8: percent of dequeued bytes kept
					 * for backlogged training, 0..90
					 */
	TCA_AICLASS_THRESHOLDS,		/* nest: TCA_AICLASS_THRESHOLD per band
					 * boundary (lat_bands - 1 of them),
					 * strictly increasing
					 */
	TCA_AICLASS_THRESHOLD,		/* u32: bytes of a burst after which it
					 * leaves a band for the next one
					 */
	TCA_AICLASS_ELEPHANT,		/* u32: bytes of a burst after which it
					 * is training traffic
					 */
	TCA_AICLASS_IDLE,		/* u32: us a flow must stay empty and
					 * silent to start a new burst
					 */
	TCA_AICLASS_FLOWS,		/* u32: flow table size, power of two */
	TCA_AICLASS_LIMIT,		/* u32: packets queued in all classes */
	TCA_AICLASS_MEMORY_LIMIT,	/* u32: bytes of skb truesize queued */
	TCA_AICLASS_CE_THRESHOLD,	/* u32: us of sojourn above which
					 * training packets get CE, 0 = off
					 */
	TCA_AICLASS_RATE,		/* u64: shaper rate in bytes/s, 0 = off */
	TCA_AICLASS_ROCE_PORT,		/* u16: RoCEv2 UDP port, 0 = off */
	TCA_AICLASS_PRIOMAP,		/* binary: AICLASS_PRIOMAP_LEN u8 class
					 * minors, AICLASS_PRIOMAP_AUTO = auto
					 */
	TCA_AICLASS_DEFAULT_CLASS,	/* u8: minor of the default training
					 * class, 0x11..0x20
					 */
	TCA_AICLASS_LAT_LIMIT,		/* u32: packets per latency band */
	TCA_AICLASS_QUANTUM,		/* u32: bytes, DRR quantum of a flow and
					 * of a weight-1 class
					 */
	TCA_AICLASS_PAD,
	TCA_AICLASS_TARGET,		/* u32: us, CoDel target sojourn of
					 * every flow queue
					 */
	TCA_AICLASS_INTERVAL,		/* u32: us, CoDel interval */
	TCA_AICLASS_ECN,		/* u8: 1 = CoDel marks ECT packets CE
					 * instead of dropping them, 0 = drops
					 */
	TCA_AICLASS_FORGET,		/* u32: us a flow whose last burst
					 * reached elephant stays remembered as
					 * training while quiet, 0 = never
					 */
	TCA_AICLASS_DSCPMAP,		/* binary: AICLASS_DSCPMAP_LEN u8 class
					 * minors by DSCP, AICLASS_DSCPMAP_AUTO:
					 * the next route decides
					 */
	TCA_AICLASS_SPLIT_GSO,		/* u8: 1 = segment GSO packets below
					 * 1 Gbit/s: the shaper's rate, or else
					 * the rate packets leave at
					 */
	TCA_AICLASS_SLOS,		/* nest: TCA_AICLASS_SLO per latency
					 * band from 1:1 up, 1 to lat_bands of
					 * them; bands not given keep theirs
					 */
	TCA_AICLASS_SLO,		/* u32: us, latency SLO of a band: the
					 * sojourn its packets should stay
					 * under, 0 = off
					 */
	TCA_AICLASS_SLO_TRAINING,	/* u8: 1 = the last latency band
					 * downgrades its excess into the
					 * default training class, 0 = it
					 * only counts (default)
					 */
	__TCA_AICLASS_MAX
};

#define TCA_AICLASS_MAX (__TCA_AICLASS_MAX - 1)

/* Class options (tc class change ... aiclass weight W): nested in
 * TCA_OPTIONS of RTM_NEWTCLASS; also dumped per class.
 */
enum {
	TCA_AICLASS_CLASS_UNSPEC,
	TCA_AICLASS_CLASS_WEIGHT,	/* u32: DRR weight, training only */
	TCA_AICLASS_CLASS_KIND,		/* u8: enum aiclass_class_kind (dump) */
	TCA_AICLASS_CLASS_SLO,		/* u32: us, latency SLO, latency bands
					 * only, 0 = off
					 */
	__TCA_AICLASS_CLASS_MAX
};

#define TCA_AICLASS_CLASS_MAX (__TCA_AICLASS_CLASS_MAX - 1)

enum aiclass_class_kind {
	AICLASS_KIND_LATENCY,
	AICLASS_KIND_TRAINING,
};

/* Extended stats: TCA_STATS_APP holds exactly one of the two nests below,
 * TCA_AICLASS_XSTATS_QDISC in a qdisc dump and TCA_AICLASS_XSTATS_CLASS in
 * a class dump.  Readers must skip attributes they do not know.
 */
enum {
	TCA_AICLASS_XSTATS_UNSPEC,
	TCA_AICLASS_XSTATS_QDISC,	/* nest: TCA_AICLASS_STATS_* */
	TCA_AICLASS_XSTATS_CLASS,	/* nest: TCA_AICLASS_CSTATS_* */
	__TCA_AICLASS_XSTATS_MAX
};

#define TCA_AICLASS_XSTATS_MAX (__TCA_AICLASS_XSTATS_MAX - 1)

/* Qdisc stats; all counters are u64 packets unless noted. */
enum {
	TCA_AICLASS_STATS_UNSPEC,
	TCA_AICLASS_STATS_PAD,
	TCA_AICLASS_STATS_CLS_PRIORITY,	/* classified by skb->priority */
	TCA_AICLASS_STATS_CLS_FILTER,	/* classified by a tc filter */
	TCA_AICLASS_STATS_CLS_PRIOMAP,	/* classified by the priomap */
	TCA_AICLASS_STATS_CLS_ROCE,	/* classified as RoCEv2 */
	TCA_AICLASS_STATS_CLS_AUTO,	/* classified by burst size */
	TCA_AICLASS_STATS_DEMOTIONS,	/* bursts moved to a lower class */
	TCA_AICLASS_STATS_IDLE_RESETS,	/* bursts restarted after idle */
	TCA_AICLASS_STATS_GUARD_YIELDS,	/* latency turns given to training */
	TCA_AICLASS_STATS_CE_MARKS,	/* training packets marked CE */
	TCA_AICLASS_STATS_DROP_OVERLIMIT, /* dropped: over limit (packets) */
	TCA_AICLASS_STATS_DROP_MEMORY,	/* dropped: over memory_limit */
	TCA_AICLASS_STATS_DROP_FILTER,	/* dropped: filter verdict shot */
	TCA_AICLASS_STATS_DROP_BAND,	/* dropped: latency band limit */
	TCA_AICLASS_STATS_STOLEN,	/* consumed by a filter action */
	TCA_AICLASS_STATS_ACTIVE_FLOWS,	/* u32: flows with packets queued */
	TCA_AICLASS_STATS_MEMORY_USED,	/* u32: bytes of truesize queued */
	TCA_AICLASS_STATS_THROTTLED,	/* times the shaper deferred dequeue */
	TCA_AICLASS_STATS_FLOWS_MOVED,	/* queued flows moved between classes */
	TCA_AICLASS_STATS_FLOWS_SHARED,	/* packets queued behind another flow */
	TCA_AICLASS_STATS_CLS_DSCPMAP,	/* classified by the dscpmap */
	TCA_AICLASS_STATS_DROP_AQM,	/* dropped by CoDel */
	TCA_AICLASS_STATS_AQM_MARKS,	/* marked CE by CoDel */
	TCA_AICLASS_STATS_REMEMBERED,	/* bursts started as training because
					 * the flow's last burst was an elephant
					 */
	TCA_AICLASS_STATS_GSO_SPLIT,	/* GSO packets segmented */
	TCA_AICLASS_STATS_SLO_DOWNGRADES, /* flows an SLO moved lower */
	__TCA_AICLASS_STATS_MAX
};

#define TCA_AICLASS_STATS_MAX (__TCA_AICLASS_STATS_MAX - 1)

/* Per-class stats; bytes, packets, drops, backlog and qlen come in the
 * generic TCA_STATS_BASIC and TCA_STATS_QUEUE.
 */
enum {
	TCA_AICLASS_CSTATS_UNSPEC,
	TCA_AICLASS_CSTATS_PAD,
	TCA_AICLASS_CSTATS_KIND,	/* u8: enum aiclass_class_kind */
	TCA_AICLASS_CSTATS_WEIGHT,	/* u32: DRR weight (training) */
	TCA_AICLASS_CSTATS_DEFICIT,	/* s32: DRR deficit, bytes (training) */
	TCA_AICLASS_CSTATS_ACTIVE_FLOWS, /* u32: flows with packets queued */
	TCA_AICLASS_CSTATS_SOJOURN_AVG,	/* u32: moving average, ns, saturates
					 * at 4.29 s: read SOJOURN_AVG64
					 */
	TCA_AICLASS_CSTATS_SOJOURN_MAX,	/* u32: maximum since reset, ns,
					 * saturates: read SOJOURN_MAX64
					 */
	TCA_AICLASS_CSTATS_CE_MARKS,	/* u64: packets marked CE above
					 * ce_threshold
					 */
	TCA_AICLASS_CSTATS_SOJOURN_AVG64, /* u64: moving average, ns */
	TCA_AICLASS_CSTATS_SOJOURN_MAX64, /* u64: maximum since reset, ns */
	TCA_AICLASS_CSTATS_AQM_DROPS,	/* u64: packets dropped by CoDel */
	TCA_AICLASS_CSTATS_AQM_MARKS,	/* u64: packets marked CE by CoDel */
	TCA_AICLASS_CSTATS_SLO,		/* u32: us, the band's SLO (latency
					 * bands with one)
					 */
	TCA_AICLASS_CSTATS_SLO_MET,	/* u64: packets that left the band
					 * within its SLO
					 */
	TCA_AICLASS_CSTATS_SLO_MISSED,	/* u64: packets that left the band
					 * after waiting longer than its SLO
					 */
	TCA_AICLASS_CSTATS_SLO_DOWNGRADES, /* u64: flows moved lower */
	TCA_AICLASS_CSTATS_SLO_PROB,	/* u32: downgrade probability now,
					 * parts per million
					 */
	__TCA_AICLASS_CSTATS_MAX
};

#define TCA_AICLASS_CSTATS_MAX (__TCA_AICLASS_CSTATS_MAX - 1)

#endif /* _UAPI_SCH_AICLASS_H */
