// SPDX-License-Identifier: GPL-2.0
/*
 * q_aiclass.c	tc plugin for the aiclass qdisc: parse and print the qdisc
 *		and class options, print the qdisc and class xstats.
 *
 * Built as q_aiclass.so and loaded by the distribution's own tc from
 * $TC_LIB_DIR.  The netlink layout is the UAPI in ../sch_aiclass.h; the
 * tc side of the interface is declared in tc_plugin.h.  The options and
 * stats themselves (names, units, ranges, grammar, text and JSON) are
 * those of ../tools/lib/aiclass, which aiclassctl shares: what one prints,
 * the other reads.
 *
 * Parsing refuses, before anything is sent (tc exits 1): unknown keywords,
 * malformed values, values outside the ranges of sch_aiclass.h, duplicate
 * keywords, and combinations that contradict each other on the same
 * command line.  What depends on the qdisc's current state is left to the
 * kernel, whose extack message tc prints (tc exits 2).
 */

#include <stdlib.h>
#include <string.h>

#include "tc_plugin.h"
#include "../tools/lib/aiclass/aiclass.h"

#define AIC_MSG_MAX	4096	/* bound passed to addattr_l() */

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... aiclass [ OPTION VALUE ]...\n"
		"Latency bands are 1:1 .. 1:N, training classes 1:11 .. 1:%x (hex\n"
		"minors, as in tc class ids); a class may be given as its minor alone.\n"
		"Options (sizes 64Kb, times 10ms, rates 10Gbit, as tc reads them):\n",
		AIC_TRAIN_MINOR_LAST);
	aic_usage_opts(stderr);
}

static void cexplain(void)
{
	fprintf(stderr,
		"Usage: ... aiclass weight WEIGHT\n"
		"WEIGHT is the DRR weight of a training class (1:11 .. 1:%x), %d..%d.\n"
		"Latency bands have no options.\n",
		AIC_TRAIN_MINOR_LAST, AICLASS_MIN_WEIGHT, AICLASS_MAX_WEIGHT);
}

static int aiclass_parse_opt(struct qdisc_util *qu __attribute__((unused)),
			     int argc, char **argv, struct nlmsghdr *n,
			     const char *dev __attribute__((unused)))
{
	char err[256], buf[AIC_OPTS_MAX_LEN];
	struct aic_config c;
	uint64_t seen = 0;
	int used, len;

	memset(&c, 0, sizeof(c));
	while (argc > 0) {
		if (strcmp(*argv, "help") == 0) {
			explain();
			return -1;
		}
		used = aic_parse_opt(&c, &seen, argc, argv, err, sizeof(err));
		if (used < 0) {
			fprintf(stderr, "%s\n", err);
			return -1;
		}
		if (used == 0) {
			fprintf(stderr, "What is \"%s\"?\n", *argv);
			explain();
			return -1;
		}
		argc -= used;
		argv += used;
	}
	if (aic_check_config(&c, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	len = aic_encode_opts(&c, buf, sizeof(buf));
	if (len < 0 ||
	    addattr_l(n, AIC_MSG_MAX, TCA_OPTIONS | NLA_F_NESTED, buf, len)) {
		fprintf(stderr, "aiclass: options do not fit the message\n");
		return -1;
	}
	return 0;
}

static int aiclass_parse_copt(struct qdisc_util *qu __attribute__((unused)),
			      int argc, char **argv, struct nlmsghdr *n,
			      const char *dev __attribute__((unused)))
{
	struct rtattr *tail;
	bool have_weight = false;
	uint32_t w = 0;
	char err[256];

	while (argc > 0) {
		if (strcmp(*argv, "weight") == 0) {
			if (have_weight) {
				fprintf(stderr, "Duplicate \"weight\"\n");
				return -1;
			}
			have_weight = true;
			if (argc < 2) {
				fprintf(stderr,
					"Illegal \"weight\": value missing\n");
				return -1;
			}
			argc--;
			argv++;
			if (aic_parse_weight(*argv, &w, err, sizeof(err))) {
				fprintf(stderr, "%s\n", err);
				return -1;
			}
		} else if (strcmp(*argv, "help") == 0) {
			cexplain();
			return -1;
		} else {
			fprintf(stderr, "What is \"%s\"?\n", *argv);
			cexplain();
			return -1;
		}
		argc--;
		argv++;
	}
	if (!have_weight) {
		fprintf(stderr, "\"weight\" is required\n");
		cexplain();
		return -1;
	}

	tail = addattr_nest(n, AIC_MSG_MAX, TCA_OPTIONS | NLA_F_NESTED);
	addattr_l(n, AIC_MSG_MAX, TCA_AICLASS_CLASS_WEIGHT, &w, sizeof(w));
	addattr_nest_end(n, tail);
	return 0;
}

/* ---- printing: the shared printers, through tc's json_print ---- */

static void tc_text(void *ctx __attribute__((unused)), const char *s)
{
	print_color_string(PRINT_FP, TC_COLOR_NONE, NULL, "%s", s);
}

static void tc_u64(void *ctx __attribute__((unused)), const char *key,
		   uint64_t v)
{
	print_color_u64(PRINT_JSON, TC_COLOR_NONE, key, NULL, v);
}

static void tc_s64(void *ctx __attribute__((unused)), const char *key,
		   int64_t v)
{
	print_color_int(PRINT_JSON, TC_COLOR_NONE, key, NULL, (int)v);
}

static void tc_str(void *ctx __attribute__((unused)), const char *key,
		   const char *v)
{
	print_color_string(PRINT_JSON, TC_COLOR_NONE, key, NULL, v);
}

static void tc_arr_open(void *ctx __attribute__((unused)), const char *key)
{
	open_json_array(PRINT_JSON, key);
}

static void tc_arr_close(void *ctx __attribute__((unused)))
{
	close_json_array(PRINT_JSON, NULL);
}

static const struct aic_printer tc_printer = {
	.text = tc_text, .u64 = tc_u64, .s64 = tc_s64, .str = tc_str,
	.arr_open = tc_arr_open, .arr_close = tc_arr_close,
};

static int aiclass_print_opt(struct qdisc_util *qu __attribute__((unused)),
			     FILE *f __attribute__((unused)),
			     struct rtattr *opt)
{
	struct aic_config c;

	if (!opt)
		return 0;
	aic_decode_opts(RTA_DATA(opt), RTA_PAYLOAD(opt), &c);
	aic_print_opts(&c, &tc_printer);
	return 0;
}

static int aiclass_print_copt(struct qdisc_util *qu __attribute__((unused)),
			      FILE *f __attribute__((unused)),
			      struct rtattr *opt)
{
	struct rtattr *rta;
	bool kind = false, weight = false;
	char buf[32];
	__u32 w;
	__u8 k;
	int len;

	if (!opt)
		return 0;
	len = RTA_PAYLOAD(opt);
	for (rta = RTA_DATA(opt); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		int type = rta->rta_type & NLA_TYPE_MASK;

		if (type == TCA_AICLASS_CLASS_KIND && !kind &&
		    RTA_PAYLOAD(rta) == 1) {
			memcpy(&k, RTA_DATA(rta), 1);
			kind = true;
		} else if (type == TCA_AICLASS_CLASS_WEIGHT && !weight &&
			   RTA_PAYLOAD(rta) == 4) {
			memcpy(&w, RTA_DATA(rta), 4);
			weight = true;
		}
	}
	if (kind)
		print_color_string(PRINT_ANY, TC_COLOR_NONE, "kind", "%s ",
				   aic_kind_name(k));
	if (weight) {
		tc_u64(NULL, "weight", w);
		snprintf(buf, sizeof(buf), "weight %u ", w);
		tc_text(NULL, buf);
	}
	return 0;
}

static int aiclass_print_xstats(struct qdisc_util *qu __attribute__((unused)),
				FILE *f __attribute__((unused)),
				struct rtattr *xstats)
{
	struct aic_stats q, cl;
	bool have_q, have_cl;

	if (!xstats)
		return 0;
	aic_decode_xstats(RTA_DATA(xstats), RTA_PAYLOAD(xstats), &q, &cl,
			  &have_q, &have_cl);
	if (have_q)
		aic_print_qstats(&q, &tc_printer);
	if (have_cl)
		aic_print_cstats(&cl, &tc_printer);
	return 0;
}

struct qdisc_util aiclass_qdisc_util = {
	.id		= "aiclass",
	.parse_qopt	= aiclass_parse_opt,
	.print_qopt	= aiclass_print_opt,
	.print_xstats	= aiclass_print_xstats,
	.parse_copt	= aiclass_parse_copt,
	.print_copt	= aiclass_print_copt,
};
