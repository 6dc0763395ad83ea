// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c	the extended stats of aiclass: one table for the qdisc and
 *		one for a class (JSON key, attribute, width, unit, the text
 *		line it belongs to), decoded from TCA_STATS_APP and printed
 *		as text and JSON.  An older module sends fewer attributes,
 *		a newer one more: what is missing is left out, what is
 *		unknown or of another size is skipped.
 */
#include <string.h>

#include "aiclass.h"
#include "nla.h"

_Static_assert(TCA_AICLASS_STATS_MAX < AIC_STATS_MAX, "aic_stats too small");
_Static_assert(TCA_AICLASS_CSTATS_MAX < AIC_STATS_MAX, "aic_stats too small");

enum st_fmt { ST_COUNT, ST_BYTES, ST_NS, ST_KIND, ST_SIGNED };

struct aic_stat {
	const char *key;	/* JSON key */
	const char *label;	/* text label */
	int attr;
	unsigned int width;
	int alt;		/* read this one (of alt_width) if attr is absent */
	unsigned int alt_width;
	enum st_fmt fmt;
	int line;		/* text line */
};

#define ST(_key, _label, _attr, _width, _fmt, _line)			\
	{ .key = (_key), .label = (_label), .attr = (_attr),		\
	  .width = (_width), .fmt = (_fmt), .line = (_line) }
#define ST64(_key, _label, _attr, _line)				\
	ST(_key, _label, _attr, 8, ST_COUNT, _line)

/* Text lines of the qdisc stats: the first word of each, or none. */
static const char *const qstat_lines[] = { "classified", NULL, "dropped", NULL };

static const struct aic_stat qstats[] = {
	ST64("cls_priority", "priority", TCA_AICLASS_STATS_CLS_PRIORITY, 0),
	ST64("cls_filter", "filter", TCA_AICLASS_STATS_CLS_FILTER, 0),
	ST64("cls_priomap", "priomap", TCA_AICLASS_STATS_CLS_PRIOMAP, 0),
	ST64("cls_dscpmap", "dscpmap", TCA_AICLASS_STATS_CLS_DSCPMAP, 0),
	ST64("cls_roce", "roce", TCA_AICLASS_STATS_CLS_ROCE, 0),
	ST64("cls_auto", "auto", TCA_AICLASS_STATS_CLS_AUTO, 0),
	ST64("demotions", "demotions", TCA_AICLASS_STATS_DEMOTIONS, 1),
	ST64("idle_resets", "idle_resets", TCA_AICLASS_STATS_IDLE_RESETS, 1),
	ST64("remembered", "remembered", TCA_AICLASS_STATS_REMEMBERED, 1),
	ST64("flows_moved", "flows_moved", TCA_AICLASS_STATS_FLOWS_MOVED, 1),
	ST64("flows_shared", "flows_shared", TCA_AICLASS_STATS_FLOWS_SHARED, 1),
	ST64("guard_yields", "guard_yields", TCA_AICLASS_STATS_GUARD_YIELDS, 1),
	ST64("throttled", "throttled", TCA_AICLASS_STATS_THROTTLED, 1),
	ST64("gso_split", "gso_split", TCA_AICLASS_STATS_GSO_SPLIT, 1),
	ST64("ce_marks", "ce_marks", TCA_AICLASS_STATS_CE_MARKS, 1),
	ST64("aqm_marks", "aqm_marks", TCA_AICLASS_STATS_AQM_MARKS, 1),
	ST64("drop_overlimit", "overlimit", TCA_AICLASS_STATS_DROP_OVERLIMIT, 2),
	ST64("drop_memory", "memory", TCA_AICLASS_STATS_DROP_MEMORY, 2),
	ST64("drop_filter", "filter", TCA_AICLASS_STATS_DROP_FILTER, 2),
	ST64("drop_band", "band", TCA_AICLASS_STATS_DROP_BAND, 2),
	ST64("drop_aqm", "aqm", TCA_AICLASS_STATS_DROP_AQM, 2),
	ST64("stolen", "stolen", TCA_AICLASS_STATS_STOLEN, 2),
	ST("active_flows", "active_flows", TCA_AICLASS_STATS_ACTIVE_FLOWS, 4,
	   ST_COUNT, 3),
	ST("memory_used", "memory_used", TCA_AICLASS_STATS_MEMORY_USED, 4,
	   ST_BYTES, 3),
};

static const char *const cstat_lines[] = { NULL };

static const struct aic_stat cstats[] = {
	ST("kind", "kind", TCA_AICLASS_CSTATS_KIND, 1, ST_KIND, 0),
	ST("weight", "weight", TCA_AICLASS_CSTATS_WEIGHT, 4, ST_COUNT, 0),
	ST("deficit", "deficit", TCA_AICLASS_CSTATS_DEFICIT, 4, ST_SIGNED, 0),
	ST("active_flows", "active_flows", TCA_AICLASS_CSTATS_ACTIVE_FLOWS, 4,
	   ST_COUNT, 0),
	{ .key = "sojourn_avg", .label = "sojourn_avg",
	  .attr = TCA_AICLASS_CSTATS_SOJOURN_AVG64, .width = 8,
	  .alt = TCA_AICLASS_CSTATS_SOJOURN_AVG, .alt_width = 4,
	  .fmt = ST_NS },
	{ .key = "sojourn_max", .label = "sojourn_max",
	  .attr = TCA_AICLASS_CSTATS_SOJOURN_MAX64, .width = 8,
	  .alt = TCA_AICLASS_CSTATS_SOJOURN_MAX, .alt_width = 4,
	  .fmt = ST_NS },
	ST64("ce_marks", "ce_marks", TCA_AICLASS_CSTATS_CE_MARKS, 0),
	ST64("aqm_drops", "aqm_drops", TCA_AICLASS_CSTATS_AQM_DROPS, 0),
	ST64("aqm_marks", "aqm_marks", TCA_AICLASS_CSTATS_AQM_MARKS, 0),
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
