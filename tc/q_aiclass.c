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
 * command line, and class ids whose major is not the qdisc's (see
 * qdisc_handle()).  What depends on the qdisc's current state is left to
 * the kernel, whose extack message tc prints (tc exits 2).
 */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>

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
		"Usage: ... aiclass [ weight WEIGHT ] [ slo TIME|off ]\n"
		"WEIGHT is the DRR weight of a training class (1:11 .. 1:%x), %d..%d.\n"
		"TIME is the latency SLO of a latency band (1:1 .. 1:%x), the sojourn\n"
		"its packets should stay under: 10us..1s, or off (0).\n",
		AIC_TRAIN_MINOR_LAST, AICLASS_MIN_WEIGHT, AICLASS_MAX_WEIGHT,
		AICLASS_LAT_MINOR_MAX);
}

/*
 * The handle of the aiclass qdisc at parent on dev, from one RTM_GETQDISC
 * dump on a socket of our own; 0 if there is none (or the dump fails).
 */
static uint32_t aiclass_at(const char *dev, uint32_t parent)
{
	struct {
		struct nlmsghdr n;
		struct tcmsg t;
	} req = {
		.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)),
		.n.nlmsg_type = RTM_GETQDISC,
		.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.n.nlmsg_seq = 1,
	};
	static char buf[32768];
	uint32_t found = 0;
	int fd, ifindex = dev ? (int)if_nametoindex(dev) : 0;
	bool done = false;

	if (!ifindex)
		return 0;
	req.t.tcm_ifindex = ifindex;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return 0;
	if (send(fd, &req, req.n.nlmsg_len, 0) < 0)
		done = true;
	while (!done) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;

		if (len <= 0)
			break;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len);
		     h = NLMSG_NEXT(h, len)) {
			struct tcmsg *t = NLMSG_DATA(h);
			struct rtattr *a = TCA_RTA(t);
			int alen = h->nlmsg_len - NLMSG_LENGTH(sizeof(*t));

			if (h->nlmsg_type == NLMSG_DONE ||
			    h->nlmsg_type == NLMSG_ERROR) {
				done = true;
				break;
			}
			if (h->nlmsg_type != RTM_NEWQDISC ||
			    t->tcm_ifindex != ifindex ||
			    t->tcm_parent != parent)
				continue;
			for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen))
				if (a->rta_type == TCA_KIND &&
				    RTA_PAYLOAD(a) == sizeof("aiclass") &&
				    !memcmp(RTA_DATA(a), "aiclass",
					    sizeof("aiclass")))
					found = t->tcm_handle;
		}
	}
	close(fd);
	return found;
}

/*
 * The handle of the qdisc these options are for, to check the majors of
 * class ids against (priomap 2:1 on qdisc 1: is refused, not read as 1).
 * The handle on the command line; without one, the aiclass at that
 * parent, which tc qdisc change or replace then changes; with none there
 * either, 0: the kernel picks the handle, and only minors alone are
 * taken.
 */
static uint32_t qdisc_handle(const struct nlmsghdr *n, const char *dev)
{
	const struct tcmsg *t = NLMSG_DATA(n);

	if (t->tcm_handle)
		return t->tcm_handle & 0xffff0000U;
	if (!t->tcm_parent)
		return 0;
	return aiclass_at(dev, t->tcm_parent);
}

static int aiclass_parse_opt(struct qdisc_util *qu __attribute__((unused)),
			     int argc, char **argv, struct nlmsghdr *n,
			     const char *dev)
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
	if (aic_check_config(&c, err, sizeof(err)) ||
	    (c.major && aic_check_major(&c, qdisc_handle(n, dev), err,
					sizeof(err)))) {
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
	bool have_weight = false, have_slo = false;
	uint32_t w = 0, slo = 0;
	char err[256];

	while (argc > 0) {
		bool is_weight = strcmp(*argv, "weight") == 0;

		if (is_weight || strcmp(*argv, "slo") == 0) {
			if (is_weight ? have_weight : have_slo) {
				fprintf(stderr, "Duplicate \"%s\"\n", *argv);
				return -1;
			}
			if (argc < 2) {
				fprintf(stderr,
					"Illegal \"%s\": value missing\n",
					*argv);
				return -1;
			}
			argc--;
			argv++;
			if (is_weight ?
			    aic_parse_weight(*argv, &w, err, sizeof(err)) :
			    aic_parse_slo(*argv, &slo, err, sizeof(err))) {
				fprintf(stderr, "%s\n", err);
				return -1;
			}
			if (is_weight)
				have_weight = true;
			else
				have_slo = true;
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
	if (!have_weight && !have_slo) {
		fprintf(stderr, "\"weight\" or \"slo\" is required\n");
		cexplain();
		return -1;
	}

	tail = addattr_nest(n, AIC_MSG_MAX, TCA_OPTIONS | NLA_F_NESTED);
	if (have_weight)
		addattr_l(n, AIC_MSG_MAX, TCA_AICLASS_CLASS_WEIGHT, &w,
			  sizeof(w));
	if (have_slo)
		addattr_l(n, AIC_MSG_MAX, TCA_AICLASS_CLASS_SLO, &slo,
			  sizeof(slo));
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
	bool kind = false, weight = false, slo = false;
	char buf[32], t[16];
	__u32 w, us;
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
		} else if (type == TCA_AICLASS_CLASS_SLO && !slo &&
			   RTA_PAYLOAD(rta) == 4) {
			memcpy(&us, RTA_DATA(rta), 4);
			slo = true;
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
	if (slo) {
		tc_u64(NULL, "slo", us);
		snprintf(buf, sizeof(buf), "slo %s ",
			 us ? aic_fmt_time(t, sizeof(t), us) : "off");
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
