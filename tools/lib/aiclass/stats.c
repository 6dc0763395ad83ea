// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c	the extended stats of aiclass: one table for the qdisc and
 *		one for a class (JSON key, attribute, width, unit, the text
 *		line it belongs to, the Prometheus metric), decoded from
 *		TCA_STATS_APP and printed as text and JSON.  An older
 *		module sends fewer attributes, a newer one more: what is
 *		missing is left out, what is unknown or of another size is
 *		skipped.
 */
#include <string.h>

#include "aiclass.h"
#include "nla.h"

_Static_assert(TCA_AICLASS_STATS_MAX < AIC_STATS_MAX, "aic_stats too small");
_Static_assert(TCA_AICLASS_CSTATS_MAX < AIC_STATS_MAX, "aic_stats too small");

/* ST_US: microseconds, 0 = off; ST_PPM: parts per million */
enum st_fmt { ST_COUNT, ST_BYTES, ST_NS, ST_KIND, ST_SIGNED, ST_US, ST_PPM };

struct aic_stat {
	const char *key;	/* JSON key */
	const char *label;	/* text label */
	int attr;
	unsigned int width;
	int alt;		/* read this one (of alt_width) if attr is absent */
	unsigned int alt_width;
	enum st_fmt fmt;
	int line;		/* text line */
	struct aic_metric m;	/* name NULL: no metric of its own */
};

/* the last argument: the metric, M(...) */
#define ST(_key, _label, _attr, _width, _fmt, _line, ...)		\
	{ .key = (_key), .label = (_label), .attr = (_attr),		\
	  .width = (_width), .fmt = (_fmt), .line = (_line),		\
	  .m = __VA_ARGS__ }
#define ST64(_key, _label, _attr, _line, ...)				\
	ST(_key, _label, _attr, 8, ST_COUNT, _line, __VA_ARGS__)
/* A metric: family name (after aiclass_qdisc_ or aiclass_class_), its
 * label of this stat within the family or NULL, HELP text.  Names follow
 * node_exporter's: a counter ends in _total, units are base units.
 */
#define M(_name, _lbl, _help)						\
	{ .name = (_name), .label = (_lbl), .help = (_help) }
#define ROUTE	"classified_packets_total"
#define ROUTE_HELP "Packets classified, by the rule that chose their class."
#define DROP	"drops_by_reason_total"
#define DROP_HELP \
	"Packets dropped, by reason (stolen: consumed by a filter action)."
#define SLO	"slo_packets_total"
#define SLO_HELP \
	"Packets that left the band within (met) or after (missed) its SLO."

/* Text lines of the qdisc stats: the first word of each, or none. */
static const char *const qstat_lines[] = { "classified", NULL, "dropped", NULL };

static const struct aic_stat qstats[] = {
	ST64("cls_priority", "priority", TCA_AICLASS_STATS_CLS_PRIORITY, 0,
	     M(ROUTE, "route=\"priority\"", ROUTE_HELP)),
	ST64("cls_filter", "filter", TCA_AICLASS_STATS_CLS_FILTER, 0,
	     M(ROUTE, "route=\"filter\"", ROUTE_HELP)),
	ST64("cls_priomap", "priomap", TCA_AICLASS_STATS_CLS_PRIOMAP, 0,
	     M(ROUTE, "route=\"priomap\"", ROUTE_HELP)),
	ST64("cls_dscpmap", "dscpmap", TCA_AICLASS_STATS_CLS_DSCPMAP, 0,
	     M(ROUTE, "route=\"dscpmap\"", ROUTE_HELP)),
	ST64("cls_roce", "roce", TCA_AICLASS_STATS_CLS_ROCE, 0,
	     M(ROUTE, "route=\"roce\"", ROUTE_HELP)),
	ST64("cls_auto", "auto", TCA_AICLASS_STATS_CLS_AUTO, 0,
	     M(ROUTE, "route=\"auto\"", ROUTE_HELP)),
	ST64("demotions", "demotions", TCA_AICLASS_STATS_DEMOTIONS, 1,
	     M("demotions_total", NULL,
	       "Bursts moved to a lower class as they crossed a threshold.")),
	ST64("idle_resets", "idle_resets", TCA_AICLASS_STATS_IDLE_RESETS, 1,
	     M("idle_resets_total", NULL, "Bursts restarted after idle.")),
	ST64("remembered", "remembered", TCA_AICLASS_STATS_REMEMBERED, 1,
	     M("remembered_total", NULL,
	       "Bursts of an elephant's flow kept training over an idle gap.")),
	ST64("flows_moved", "flows_moved", TCA_AICLASS_STATS_FLOWS_MOVED, 1,
	     M("flows_moved_total", NULL,
	       "Queued flows moved between classes.")),
	ST64("flows_shared", "flows_shared", TCA_AICLASS_STATS_FLOWS_SHARED, 1,
	     M("flows_shared_total", NULL,
	       "Packets queued in a flow-table slot shared with another flow.")),
	ST64("guard_yields", "guard_yields", TCA_AICLASS_STATS_GUARD_YIELDS, 1,
	     M("guard_yields_total", NULL,
	       "Latency turns given to training by the burst/train_share guard.")),
	ST64("throttled", "throttled", TCA_AICLASS_STATS_THROTTLED, 1,
	     M("throttled_total", NULL, "Times the shaper deferred dequeue.")),
	ST64("gso_split", "gso_split", TCA_AICLASS_STATS_GSO_SPLIT, 1,
	     M("gso_split_total", NULL,
	       "GSO packets segmented before they were queued (split_gso).")),
	ST64("ce_marks", "ce_marks", TCA_AICLASS_STATS_CE_MARKS, 1,
	     M("ce_marks_total", NULL,
	       "Training packets marked CE by ce_threshold.")),
	ST64("aqm_marks", "aqm_marks", TCA_AICLASS_STATS_AQM_MARKS, 1,
	     M("aqm_marks_total", NULL, "Packets marked CE by CoDel.")),
	ST64("slo_downgrades", "slo_downgrades",
	     TCA_AICLASS_STATS_SLO_DOWNGRADES, 1,
	     M("slo_downgrades_total", NULL,
	       "Flows moved a band lower by a latency SLO, all bands.")),
	ST64("drop_overlimit", "overlimit", TCA_AICLASS_STATS_DROP_OVERLIMIT, 2,
	     M(DROP, "reason=\"overlimit\"", DROP_HELP)),
	ST64("drop_memory", "memory", TCA_AICLASS_STATS_DROP_MEMORY, 2,
	     M(DROP, "reason=\"memory\"", DROP_HELP)),
	ST64("drop_filter", "filter", TCA_AICLASS_STATS_DROP_FILTER, 2,
	     M(DROP, "reason=\"filter\"", DROP_HELP)),
	ST64("drop_band", "band", TCA_AICLASS_STATS_DROP_BAND, 2,
	     M(DROP, "reason=\"band\"", DROP_HELP)),
	ST64("drop_aqm", "aqm", TCA_AICLASS_STATS_DROP_AQM, 2,
	     M(DROP, "reason=\"aqm\"", DROP_HELP)),
	ST64("stolen", "stolen", TCA_AICLASS_STATS_STOLEN, 2,
	     M(DROP, "reason=\"stolen\"", DROP_HELP)),
	ST("active_flows", "active_flows", TCA_AICLASS_STATS_ACTIVE_FLOWS, 4,
	   ST_COUNT, 3, M("active_flows", NULL, "Flows with packets queued.")),
	ST("memory_used", "memory_used", TCA_AICLASS_STATS_MEMORY_USED, 4,
	   ST_BYTES, 3, M("memory_used_bytes", NULL,
			  "Bytes of truesize queued.")),
};

static const char *const cstat_lines[] = { NULL, NULL };

static const struct aic_stat cstats[] = {
	/* kind: a label of every class metric, no metric of its own */
	ST("kind", "kind", TCA_AICLASS_CSTATS_KIND, 1, ST_KIND, 0,
	   M(NULL, NULL, NULL)),
	ST("weight", "weight", TCA_AICLASS_CSTATS_WEIGHT, 4, ST_COUNT, 0,
	   M("weight", NULL, "DRR weight of the training class.")),
	ST("deficit", "deficit", TCA_AICLASS_CSTATS_DEFICIT, 4, ST_SIGNED, 0,
	   M("deficit_bytes", NULL, "DRR deficit of the training class.")),
	ST("active_flows", "active_flows", TCA_AICLASS_CSTATS_ACTIVE_FLOWS, 4,
	   ST_COUNT, 0, M("active_flows", NULL,
			  "Flows of the class with packets queued.")),
	{ .key = "sojourn_avg", .label = "sojourn_avg",
	  .attr = TCA_AICLASS_CSTATS_SOJOURN_AVG64, .width = 8,
	  .alt = TCA_AICLASS_CSTATS_SOJOURN_AVG, .alt_width = 4,
	  .fmt = ST_NS,
	  .m = M("sojourn_avg_seconds", NULL,
		 "Moving average of the time packets of the class spent queued.") },
	{ .key = "sojourn_max", .label = "sojourn_max",
	  .attr = TCA_AICLASS_CSTATS_SOJOURN_MAX64, .width = 8,
	  .alt = TCA_AICLASS_CSTATS_SOJOURN_MAX, .alt_width = 4,
	  .fmt = ST_NS,
	  .m = M("sojourn_max_seconds", NULL,
		 "Longest time a packet of the class spent queued since the last reset.") },
	ST64("ce_marks", "ce_marks", TCA_AICLASS_CSTATS_CE_MARKS, 0,
	     M("ce_marks_total", NULL,
	       "Packets of the class marked CE by ce_threshold.")),
	ST64("aqm_drops", "aqm_drops", TCA_AICLASS_CSTATS_AQM_DROPS, 0,
	     M("aqm_drops_total", NULL,
	       "Packets of the class dropped by CoDel.")),
	ST64("aqm_marks", "aqm_marks", TCA_AICLASS_CSTATS_AQM_MARKS, 0,
	     M("aqm_marks_total", NULL,
	       "Packets of the class marked CE by CoDel.")),
	/* latency bands with an SLO: a line of their own */
	ST("slo", "slo", TCA_AICLASS_CSTATS_SLO, 4, ST_US, 1,
	   M("slo_seconds", NULL,
	     "Latency SLO of the band: the sojourn its packets should stay under (0: off).")),
	ST64("slo_met", "slo_met", TCA_AICLASS_CSTATS_SLO_MET, 1,
	     M(SLO, "result=\"met\"", SLO_HELP)),
	ST64("slo_missed", "slo_missed", TCA_AICLASS_CSTATS_SLO_MISSED, 1,
	     M(SLO, "result=\"missed\"", SLO_HELP)),
	ST64("slo_downgrades", "slo_downgrades",
	     TCA_AICLASS_CSTATS_SLO_DOWNGRADES, 1,
	     M("slo_downgrades_total", NULL,
	       "Flows moved from the band to the next lower class by its SLO.")),
	ST("slo_prob", "slo_prob", TCA_AICLASS_CSTATS_SLO_PROB, 4, ST_PPM, 1,
	   M("slo_downgrade_ratio", NULL,
	     "Probability now that a flow of the band is downgraded, 0 to 1.")),
};

static void decode(const struct nlattr *nest, struct aic_stats *s)
{
	const struct nlattr *a;
	int rem;

	memset(s, 0, sizeof(*s));
	aic_nla_for_each(a, AIC_NLA_DATA(nest), AIC_NLA_LEN(nest), rem) {
		int t = a->nla_type & NLA_TYPE_MASK;
		size_t n = AIC_NLA_LEN(a);
		uint64_t v;

		if (t >= AIC_STATS_MAX || s->width[t] || !aic_nla_uint(a, n, &v))
			continue;
		s->v[t] = v;
		s->width[t] = n;
	}
}

void aic_decode_xstats(const void *payload, size_t len, struct aic_stats *q,
		       struct aic_stats *cl, bool *have_q, bool *have_cl)
{
	const struct nlattr *a;
	int rem;

	*have_q = *have_cl = false;
	aic_nla_for_each(a, payload, len, rem) {
		int t = a->nla_type & NLA_TYPE_MASK;

		if (t == TCA_AICLASS_XSTATS_QDISC && q && !*have_q) {
			decode(a, q);
			*have_q = true;
		} else if (t == TCA_AICLASS_XSTATS_CLASS && cl && !*have_cl) {
			decode(a, cl);
			*have_cl = true;
		}
	}
}

/* The value of st as it is read: its own attribute, else the fallback. */
static bool value(const struct aic_stats *s, const struct aic_stat *st,
		  int64_t *v)
{
	if (s->width[st->attr] == st->width) {
		*v = st->fmt == ST_SIGNED ? (int32_t)(uint32_t)s->v[st->attr] :
		     (int64_t)s->v[st->attr];
		return true;
	}
	if (st->alt && s->width[st->alt] == st->alt_width) {
		*v = s->v[st->alt];
		return true;
	}
	return false;
}

bool aic_cstat(const struct aic_stats *s, const char *key, int64_t *v)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cstats); i++)
		if (!strcmp(cstats[i].key, key))
			return value(s, &cstats[i], v);
	return false;
}

const char *aic_kind_name(uint64_t kind)
{
	switch (kind) {
	case AICLASS_KIND_LATENCY:
		return "latency";
	case AICLASS_KIND_TRAINING:
		return "training";
	}
	return "unknown";
}

/*
 * Text: each line starts on a line of its own, two spaces in (tc ends its
 * own stats with a newline), "label value" pairs after the line's word.
 */
static void print(const struct aic_stats *s, const struct aic_printer *p,
		  const struct aic_stat *st, size_t nst,
		  const char *const *lines, size_t nlines)
{
	bool any_line = false;
	size_t line, i;
	char buf[64];

	for (line = 0; line < nlines; line++) {
		bool started = false;

		for (i = 0; i < nst; i++) {
			int64_t v;

			if (st[i].line != (int)line || !value(s, &st[i], &v))
				continue;
			if (st[i].fmt == ST_KIND) {
				/* text has it in the class options already */
				p->str(p->ctx, st[i].key, aic_kind_name(v));
				continue;
			}
			if (!started && p->text) {
				p->text(p->ctx, any_line ? "\n " : " ");
				if (lines[line]) {
					p->text(p->ctx, " ");
					p->text(p->ctx, lines[line]);
				}
			}
			started = any_line = true;
			if (st[i].fmt == ST_SIGNED) {
				p->s64(p->ctx, st[i].key, v);
				snprintf(buf, sizeof(buf), "%lld", (long long)v);
			} else {
				p->u64(p->ctx, st[i].key, v);
				if (st[i].fmt == ST_BYTES)
					aic_fmt_size(buf, sizeof(buf), v);
				else if (st[i].fmt == ST_NS)
					aic_fmt_ns(buf, sizeof(buf), v);
				else if (st[i].fmt == ST_US && !v)
					snprintf(buf, sizeof(buf), "off");
				else if (st[i].fmt == ST_US)
					aic_fmt_time(buf, sizeof(buf), v);
				else if (st[i].fmt == ST_PPM)
					snprintf(buf, sizeof(buf), "%.2f%%",
						 v / 1e4);
				else
					snprintf(buf, sizeof(buf), "%llu",
						 (unsigned long long)v);
			}
			if (p->text) {
				p->text(p->ctx, " ");
				p->text(p->ctx, st[i].label);
				p->text(p->ctx, " ");
				p->text(p->ctx, buf);
			}
		}
	}
}

void aic_print_qstats(const struct aic_stats *s, const struct aic_printer *p)
{
	print(s, p, qstats, ARRAY_SIZE(qstats), qstat_lines,
	      ARRAY_SIZE(qstat_lines));
}

void aic_print_cstats(const struct aic_stats *s, const struct aic_printer *p)
{
	print(s, p, cstats, ARRAY_SIZE(cstats), cstat_lines,
	      ARRAY_SIZE(cstat_lines));
}

/*
 * Prometheus: the metric of the i-th stat of a table and its value in the
 * metric's base unit (nanoseconds and microseconds as seconds, parts per
 * million as a ratio, exactly), for aiclassctl metrics.
 */
static const struct aic_metric *metric(const struct aic_stat *st, size_t nst,
				       unsigned int i)
{
	return i < nst ? &st[i].m : NULL;
}

static bool metric_value(const struct aic_stats *s, const struct aic_stat *st,
			 size_t nst, unsigned int i, char *buf, size_t len)
{
	int64_t v;

	if (i >= nst || !st[i].m.name || !value(s, &st[i], &v))
		return false;
	if (st[i].fmt == ST_NS && v >= 0)
		snprintf(buf, len, "%lld.%09lld", (long long)(v / 1000000000),
			 (long long)(v % 1000000000));
	else if ((st[i].fmt == ST_US || st[i].fmt == ST_PPM) && v >= 0)
		snprintf(buf, len, "%lld.%06lld", (long long)(v / 1000000),
			 (long long)(v % 1000000));
	else
		snprintf(buf, len, "%lld", (long long)v);
	return true;
}

const struct aic_metric *aic_qmetric(unsigned int i)
{
	return metric(qstats, ARRAY_SIZE(qstats), i);
}

const struct aic_metric *aic_cmetric(unsigned int i)
{
	return metric(cstats, ARRAY_SIZE(cstats), i);
}

bool aic_qmetric_value(const struct aic_stats *s, unsigned int i, char *buf,
		       size_t len)
{
	return metric_value(s, qstats, ARRAY_SIZE(qstats), i, buf, len);
}

bool aic_cmetric_value(const struct aic_stats *s, unsigned int i, char *buf,
		       size_t len)
{
	return metric_value(s, cstats, ARRAY_SIZE(cstats), i, buf, len);
}
