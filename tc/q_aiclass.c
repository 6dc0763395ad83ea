// SPDX-License-Identifier: GPL-2.0
/*
 * q_aiclass.c	tc plugin for the aiclass qdisc: parse and print the qdisc
 *		and class options, print the qdisc and class xstats.
 *
 * Built as q_aiclass.so and loaded by the distribution's own tc from
 * $TC_LIB_DIR.  The netlink layout is the UAPI in ../sch_aiclass.h; the
 * tc side of the interface is declared in tc_plugin.h.
 *
 * Parsing refuses, before anything is sent (tc exits 1): unknown keywords,
 * values tc's unit parsers do not accept, values outside the ranges of
 * sch_aiclass.h, duplicate keywords, and combinations that contradict each
 * other on the same command line.  What depends on the qdisc's current
 * state (e.g. thresholds for the lat_bands already configured) is left to
 * the kernel, whose extack message tc prints (tc exits 2).
 *
 * Printing shows every option the kernel dumps, in the order and syntax
 * of "tc qdisc add", so that the output of "tc qdisc show" is valid input.
 * Text gets human units, JSON gets raw numbers (bytes, microseconds,
 * bytes per second, nanoseconds).  Attributes that are missing (older
 * module), unknown (newer module) or of an unexpected size are skipped.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tc_plugin.h"
#include "../sch_aiclass.h"

#define AIC_MSG_MAX	1024	/* bound passed to addattr_*(), as tc does */

/* The last training class minor that can exist: AICLASS_MAX_TRAIN_CLASSES
 * classes from 1:11 up, which is AICLASS_TRAIN_MINOR_MAX (1:20) as long as
 * the two macros of sch_aiclass.h agree.
 */
#define AIC_TRAIN_MINOR_LAST	(AICLASS_TRAIN_MINOR_MIN + AICLASS_MAX_TRAIN_CLASSES - 1)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* How an option's value is written and read. */
enum aiclass_unit {
	AIC_COUNT,	/* plain decimal number */
	AIC_BYTES,	/* get_size(): 1514, 64kb, 1mb */
	AIC_USECS,	/* get_time(): 500us, 10ms, 1s */
	AIC_RATE,	/* get_rate64(): 100mbit, 10gbit; bytes/s on the wire */
	AIC_PORT,	/* UDP port, 0 or "noroce" = off */
	AIC_CLASS,	/* class minor: 1:11 or 11 (hex, as in tc classids) */
	AIC_WEIGHTS,	/* list of AIC_COUNT */
	AIC_THRESHOLDS,	/* list of AIC_BYTES */
	AIC_PRIOMAP,	/* list of AIC_CLASS or auto */
};

struct aiclass_opt {
	const char *name;	/* keyword, JSON key */
	int attr;		/* TCA_AICLASS_* */
	enum aiclass_unit unit;
	unsigned int width;	/* bytes of a scalar on the wire */
	__u64 min, max;
	bool pow2;		/* value must be a power of two */
};

#define AIC_OPT_P2(_name, _attr, _unit, _width, _min, _max, _pow2)	\
	{ .name = (_name), .attr = (_attr), .unit = (_unit),		\
	  .width = (_width), .min = (_min), .max = (_max),		\
	  .pow2 = (_pow2) }
#define AIC_OPT(_name, _attr, _unit, _width, _min, _max)		\
	AIC_OPT_P2(_name, _attr, _unit, _width, _min, _max, false)

/* In "tc qdisc add" order; print_qopt prints in this order too. */
static const struct aiclass_opt aiclass_opts[] = {
	AIC_OPT("lat_bands", TCA_AICLASS_LAT_BANDS, AIC_COUNT, 1,
		1, AICLASS_MAX_LAT_BANDS),
	AIC_OPT("train_classes", TCA_AICLASS_TRAIN_CLASSES, AIC_COUNT, 1,
		1, AICLASS_MAX_TRAIN_CLASSES),
	AIC_OPT("weights", TCA_AICLASS_WEIGHTS, AIC_WEIGHTS, 4,
		AICLASS_MIN_WEIGHT, AICLASS_MAX_WEIGHT),
	AIC_OPT("burst", TCA_AICLASS_BURST, AIC_BYTES, 4,
		AICLASS_MIN_BURST, AICLASS_MAX_BURST),
	AIC_OPT("train_share", TCA_AICLASS_TRAIN_SHARE, AIC_COUNT, 1,
		0, AICLASS_MAX_TRAIN_SHARE),
	AIC_OPT("thresholds", TCA_AICLASS_THRESHOLDS, AIC_THRESHOLDS, 4,
		AICLASS_MIN_THRESHOLD, AICLASS_MAX_ELEPHANT - 1),
	AIC_OPT("elephant", TCA_AICLASS_ELEPHANT, AIC_BYTES, 4,
		AICLASS_MIN_ELEPHANT, AICLASS_MAX_ELEPHANT),
	AIC_OPT("idle", TCA_AICLASS_IDLE, AIC_USECS, 4,
		AICLASS_MIN_IDLE, AICLASS_MAX_IDLE),
	AIC_OPT_P2("flows", TCA_AICLASS_FLOWS, AIC_COUNT, 4,
		   AICLASS_MIN_FLOWS, AICLASS_MAX_FLOWS, true),
	AIC_OPT("limit", TCA_AICLASS_LIMIT, AIC_COUNT, 4,
		AICLASS_MIN_LIMIT, AICLASS_MAX_LIMIT),
	AIC_OPT("memory_limit", TCA_AICLASS_MEMORY_LIMIT, AIC_BYTES, 4,
		AICLASS_MIN_MEMORY_LIMIT, AICLASS_MAX_MEMORY_LIMIT),
	AIC_OPT("ce_threshold", TCA_AICLASS_CE_THRESHOLD, AIC_USECS, 4,
		0, AICLASS_MAX_CE_THRESHOLD),
	AIC_OPT("rate", TCA_AICLASS_RATE, AIC_RATE, 8,
		0, UINT64_MAX),
	AIC_OPT("roce_port", TCA_AICLASS_ROCE_PORT, AIC_PORT, 2,
		0, 65535),
	AIC_OPT("priomap", TCA_AICLASS_PRIOMAP, AIC_PRIOMAP, 1,
		0, AIC_TRAIN_MINOR_LAST),
	AIC_OPT("default_class", TCA_AICLASS_DEFAULT_CLASS, AIC_CLASS, 1,
		AICLASS_TRAIN_MINOR_MIN, AIC_TRAIN_MINOR_LAST),
	AIC_OPT("lat_limit", TCA_AICLASS_LAT_LIMIT, AIC_COUNT, 4,
		1, AICLASS_MAX_LIMIT),
	AIC_OPT("quantum", TCA_AICLASS_QUANTUM, AIC_BYTES, 4,
		AICLASS_MIN_QUANTUM, AICLASS_MAX_QUANTUM),
};

/* What one command line asks for. */
struct aiclass_req {
	bool seen[TCA_AICLASS_MAX + 1];
	__u64 val[TCA_AICLASS_MAX + 1];			/* scalars */
	__u32 weights[AICLASS_MAX_TRAIN_CLASSES];
	unsigned int nweights;
	__u32 thresholds[AICLASS_MAX_LAT_BANDS - 1];
	unsigned int nthresholds;
	__u8 priomap[AICLASS_PRIOMAP_LEN];
	unsigned int nprio;
};

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... aiclass [ lat_bands N ] [ train_classes M ] [ weights W1 ... WM ]\n"
		"                   [ burst BYTES ] [ train_share PERCENT ]\n"
		"                   [ thresholds B1 ... B(N-1) ] [ elephant BYTES ] [ idle TIME ]\n"
		"                   [ flows NUMBER ] [ limit PACKETS ] [ memory_limit BYTES ]\n"
		"                   [ ce_threshold TIME ] [ rate RATE ] [ roce_port PORT | noroce ]\n"
		"                   [ priomap C0 ... C15 ] [ default_class CLASSID ]\n"
		"                   [ lat_limit PACKETS ] [ quantum BYTES ]\n"
		"Latency bands are 1:1 .. 1:N (N 1..%d, default %d), training classes\n"
		"1:11 .. 1:%x (hex minors), the first M of them (M 1..%d, default %d).\n"
		"W 1..%d.  "
		"BYTES, TIME and RATE take tc's units (64kb, 10ms, 10gbit);\n"
		"ce_threshold 0 and rate 0 are off.\n"
		"A priomap entry is a class (1:2, 1:11, or the minor alone: 2, 11) or auto.\n",
		AICLASS_MAX_LAT_BANDS, AICLASS_DEF_LAT_BANDS,
		AIC_TRAIN_MINOR_LAST,
		AICLASS_MAX_TRAIN_CLASSES, AICLASS_DEF_TRAIN_CLASSES,
		AICLASS_MAX_WEIGHT);
}

static void cexplain(void)
{
	fprintf(stderr,
		"Usage: ... aiclass weight WEIGHT\n"
		"WEIGHT is the DRR weight of a training class (1:11 .. 1:%x), %d..%d.\n"
		"Latency bands have no options.\n",
		AIC_TRAIN_MINOR_LAST, AICLASS_MIN_WEIGHT, AICLASS_MAX_WEIGHT);
}

static const struct aiclass_opt *aiclass_find_opt(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(aiclass_opts); i++)
		if (strcmp(aiclass_opts[i].name, name) == 0)
			return &aiclass_opts[i];
	return NULL;
}

/* A plain non-negative decimal number, nothing before or after it. */
static int aiclass_get_count(__u64 *val, const char *arg)
{
	unsigned long long v;
	char *end;

	if (*arg < '0' || *arg > '9')
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || *end)
		return -1;
	*val = v;
	return 0;
}

/* "1:11", ":11" or "11": a class minor, hex as in every tc classid; the
 * major, if given, is not checked here (tc passes the plugin no handle
 * for classes of another qdisc, and the kernel ignores it).
 */
static int aiclass_get_class(__u64 *val, const char *arg)
{
	const char *minor = strchr(arg, ':');
	unsigned long v;
	char *end;

	if (minor) {
		if (minor != arg) {
			v = strtoul(arg, &end, 16);
			if (end != minor || v > 0xffff)
				return -1;
		}
		arg = minor + 1;
	}
	if (!((*arg >= '0' && *arg <= '9') || (*arg >= 'a' && *arg <= 'f') ||
	      (*arg >= 'A' && *arg <= 'F')))
		return -1;
	errno = 0;
	v = strtoul(arg, &end, 16);
	if (errno || *end || v > 0xffff)
		return -1;
	*val = v;
	return 0;
}

static bool aiclass_class_ok(__u64 minor)
{
	return (minor >= AICLASS_LAT_MINOR_MIN &&
		minor <= AICLASS_LAT_MINOR_MAX) ||
	       (minor >= AICLASS_TRAIN_MINOR_MIN &&
		minor <= AIC_TRAIN_MINOR_LAST);
}

/* Read one scalar value of @o from @arg; 0, or -1 after a message. */
static int aiclass_get_value(const struct aiclass_opt *o, const char *arg,
			     __u64 *val)
{
	unsigned int u32;
	__u64 u64;
	int err = -1;

	switch (o->unit) {
	case AIC_COUNT:
	case AIC_WEIGHTS:
	case AIC_PORT:
		err = aiclass_get_count(&u64, arg);
		break;
	case AIC_BYTES:
	case AIC_THRESHOLDS:
		/* get_size() would take "-1" and "inf" */
		if (*arg >= '0' && *arg <= '9') {
			err = get_size(&u32, arg);
			u64 = u32;
		}
		break;
	case AIC_USECS:
		if (*arg >= '0' && *arg <= '9') {
			err = get_time(&u32, arg);
			u64 = u32;
		}
		break;
	case AIC_RATE:
		if (*arg >= '0' && *arg <= '9')
			err = get_rate64(&u64, arg);
		break;
	case AIC_CLASS:
	case AIC_PRIOMAP:
		if (o->unit == AIC_PRIOMAP && strcmp(arg, "auto") == 0) {
			u64 = AICLASS_PRIOMAP_AUTO;
			err = 0;
			break;
		}
		err = aiclass_get_class(&u64, arg);
		if (!err && !aiclass_class_ok(u64)) {
			fprintf(stderr,
				"Illegal \"%s\": \"%s\" is not an aiclass class (1:1..1:%x, 1:%x..1:%x)\n",
				o->name, arg, AICLASS_LAT_MINOR_MAX,
				AICLASS_TRAIN_MINOR_MIN, AIC_TRAIN_MINOR_LAST);
			return -1;
		}
		break;
	}
	if (err) {
		fprintf(stderr, "Illegal \"%s\"\n", o->name);
		return -1;
	}
	if (o->unit != AIC_PRIOMAP && (u64 < o->min || u64 > o->max)) {
		if (o->unit == AIC_CLASS)
			fprintf(stderr,
				"Illegal \"%s\": must be 1:%x..1:%x\n",
				o->name, (unsigned int)o->min,
				(unsigned int)o->max);
		else
			fprintf(stderr,
				"Illegal \"%s\": must be %" PRIu64 "..%" PRIu64 "%s\n",
				o->name, (uint64_t)o->min, (uint64_t)o->max,
				o->unit == AIC_BYTES ||
				o->unit == AIC_THRESHOLDS ? " bytes" :
				o->unit == AIC_USECS ? " us" : "");
		return -1;
	}
	if (o->pow2 && (u64 & (u64 - 1))) {
		fprintf(stderr, "Illegal \"%s\": must be a power of two\n",
			o->name);
		return -1;
	}
	*val = u64;
	return 0;
}

/* Checks across options given together; the kernel checks the rest. */
static int aiclass_check_req(const struct aiclass_req *r)
{
	unsigned int lat = AICLASS_MAX_LAT_BANDS;
	unsigned int train = AICLASS_MAX_TRAIN_CLASSES;
	unsigned int i;

	if (r->seen[TCA_AICLASS_LAT_BANDS])
		lat = r->val[TCA_AICLASS_LAT_BANDS];
	if (r->seen[TCA_AICLASS_TRAIN_CLASSES])
		train = r->val[TCA_AICLASS_TRAIN_CLASSES];

	if (r->seen[TCA_AICLASS_WEIGHTS] && r->nweights > train) {
		fprintf(stderr,
			"Illegal \"weights\": %u given for %u training classes\n",
			r->nweights, train);
		return -1;
	}
	if (r->seen[TCA_AICLASS_THRESHOLDS]) {
		if (r->seen[TCA_AICLASS_LAT_BANDS] &&
		    r->nthresholds != lat - 1) {
			fprintf(stderr,
				"Illegal \"thresholds\": lat_bands %u needs exactly %u\n",
				lat, lat - 1);
			return -1;
		}
		if (r->nthresholds > AICLASS_MAX_LAT_BANDS - 1) {
			fprintf(stderr,
				"Illegal \"thresholds\": at most %u\n",
				AICLASS_MAX_LAT_BANDS - 1);
			return -1;
		}
		for (i = 1; i < r->nthresholds; i++) {
			if (r->thresholds[i] <= r->thresholds[i - 1]) {
				fprintf(stderr,
					"Illegal \"thresholds\": must be strictly increasing\n");
				return -1;
			}
		}
		if (r->seen[TCA_AICLASS_ELEPHANT] && r->nthresholds &&
		    r->thresholds[r->nthresholds - 1] >=
		    r->val[TCA_AICLASS_ELEPHANT]) {
			fprintf(stderr,
				"Illegal \"thresholds\": must be below \"elephant\"\n");
			return -1;
		}
	}
	if (r->seen[TCA_AICLASS_DEFAULT_CLASS] &&
	    r->val[TCA_AICLASS_DEFAULT_CLASS] >
	    AICLASS_TRAIN_MINOR_MIN - 1 + train) {
		fprintf(stderr,
			"Illegal \"default_class\": train_classes %u ends at 1:%x\n",
			train, AICLASS_TRAIN_MINOR_MIN - 1 + train);
		return -1;
	}
	for (i = 0; i < r->nprio; i++) {
		unsigned int c = r->priomap[i];

		if (c == AICLASS_PRIOMAP_AUTO)
			continue;
		if ((c <= AICLASS_LAT_MINOR_MAX && c > lat) ||
		    (c >= AICLASS_TRAIN_MINOR_MIN &&
		     c > AICLASS_TRAIN_MINOR_MIN - 1 + train)) {
			fprintf(stderr,
				"Illegal \"priomap\": class 1:%x does not exist with lat_bands %u train_classes %u\n",
				c, lat, train);
			return -1;
		}
	}
	return 0;
}

static void aiclass_put(struct nlmsghdr *n, int attr, __u64 v,
			unsigned int width)
{
	__u8 u8 = v;
	__u16 u16 = v;
	__u32 u32 = v;

	switch (width) {
	case 1:
		addattr_l(n, AIC_MSG_MAX, attr, &u8, 1);
		break;
	case 2:
		addattr_l(n, AIC_MSG_MAX, attr, &u16, 2);
		break;
	case 4:
		addattr_l(n, AIC_MSG_MAX, attr, &u32, 4);
		break;
	default:
		addattr_l(n, AIC_MSG_MAX, attr, &v, 8);
		break;
	}
}

static void aiclass_put_list(struct nlmsghdr *n, int attr, int elem,
			     const __u32 *v, unsigned int count)
{
	struct rtattr *nest;
	unsigned int i;

	nest = addattr_nest(n, AIC_MSG_MAX, attr | NLA_F_NESTED);
	for (i = 0; i < count; i++)
		addattr_l(n, AIC_MSG_MAX, elem, &v[i], sizeof(v[i]));
	addattr_nest_end(n, nest);
}

static int aiclass_parse_opt(struct qdisc_util *qu __attribute__((unused)),
			     int argc, char **argv, struct nlmsghdr *n,
			     const char *dev __attribute__((unused)))
{
	struct aiclass_req r;
	struct rtattr *tail;
	unsigned int i;
	__u64 v;

	memset(&r, 0, sizeof(r));

	while (argc > 0) {
		const struct aiclass_opt *o;
		const char *key = *argv;

		if (strcmp(key, "help") == 0) {
			explain();
			return -1;
		}
		if (strcmp(key, "noroce") == 0) {
			o = aiclass_find_opt("roce_port");
		} else {
			o = aiclass_find_opt(key);
			if (!o) {
				fprintf(stderr, "What is \"%s\"?\n", key);
				explain();
				return -1;
			}
		}
		if (r.seen[o->attr]) {
			fprintf(stderr, "Duplicate \"%s\"\n",
				strcmp(key, "noroce") ? o->name :
				"roce_port\" or \"noroce");
			return -1;
		}
		r.seen[o->attr] = true;
		argc--;
		argv++;

		if (strcmp(key, "noroce") == 0) {
			r.val[o->attr] = 0;
			continue;
		}
		if (argc <= 0) {
			fprintf(stderr, "Illegal \"%s\": value missing\n",
				o->name);
			return -1;
		}

		switch (o->unit) {
		case AIC_WEIGHTS:
		case AIC_THRESHOLDS:
		case AIC_PRIOMAP:
			/* A list runs up to the next keyword. */
			do {
				if (aiclass_get_value(o, *argv, &v))
					return -1;
				if (o->unit == AIC_WEIGHTS) {
					if (r.nweights == ARRAY_SIZE(r.weights)) {
						fprintf(stderr,
							"Illegal \"weights\": at most %u\n",
							AICLASS_MAX_TRAIN_CLASSES);
						return -1;
					}
					r.weights[r.nweights++] = v;
				} else if (o->unit == AIC_THRESHOLDS) {
					if (r.nthresholds ==
					    ARRAY_SIZE(r.thresholds)) {
						fprintf(stderr,
							"Illegal \"thresholds\": at most %u\n",
							AICLASS_MAX_LAT_BANDS - 1);
						return -1;
					}
					r.thresholds[r.nthresholds++] = v;
				} else {
					if (r.nprio == AICLASS_PRIOMAP_LEN) {
						fprintf(stderr,
							"Illegal \"priomap\": at most %u entries\n",
							AICLASS_PRIOMAP_LEN);
						return -1;
					}
					r.priomap[r.nprio++] = v;
				}
				argc--;
				argv++;
			} while (argc > 0 && !aiclass_find_opt(*argv) &&
				 strcmp(*argv, "noroce") &&
				 strcmp(*argv, "help"));
			continue;
		default:
			if (aiclass_get_value(o, *argv, &v))
				return -1;
			r.val[o->attr] = v;
			break;
		}
		argc--;
		argv++;
	}

	if (aiclass_check_req(&r))
		return -1;

	tail = addattr_nest(n, AIC_MSG_MAX, TCA_OPTIONS | NLA_F_NESTED);
	for (i = 0; i < ARRAY_SIZE(aiclass_opts); i++) {
		const struct aiclass_opt *o = &aiclass_opts[i];

		if (!r.seen[o->attr])
			continue;
		switch (o->unit) {
		case AIC_WEIGHTS:
			aiclass_put_list(n, o->attr, TCA_AICLASS_WEIGHT,
					 r.weights, r.nweights);
			break;
		case AIC_THRESHOLDS:
			aiclass_put_list(n, o->attr, TCA_AICLASS_THRESHOLD,
					 r.thresholds, r.nthresholds);
			break;
		case AIC_PRIOMAP:
			/* entries not given stay auto */
			addattr_l(n, AIC_MSG_MAX, o->attr, r.priomap,
				  sizeof(r.priomap));
			break;
		default:
			aiclass_put(n, o->attr, r.val[o->attr], o->width);
			break;
		}
	}
	addattr_nest_end(n, tail);
	return 0;
}

static int aiclass_parse_copt(struct qdisc_util *qu __attribute__((unused)),
			      int argc, char **argv, struct nlmsghdr *n,
			      const char *dev __attribute__((unused)))
{
	static const struct aiclass_opt weight =
		AIC_OPT("weight", TCA_AICLASS_CLASS_WEIGHT, AIC_COUNT, 4,
			AICLASS_MIN_WEIGHT, AICLASS_MAX_WEIGHT);
	bool have_weight = false;
	struct rtattr *tail;
	__u64 v = 0;

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
			if (aiclass_get_value(&weight, *argv, &v))
				return -1;
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
	aiclass_put(n, TCA_AICLASS_CLASS_WEIGHT, v, 4);
	addattr_nest_end(n, tail);
	return 0;
}

/* ---- printing ---- */

/* Index the attributes of a nest by type; the first of each type wins. */
static void aiclass_nest(struct rtattr **tb, int max, struct rtattr *nest)
{
	struct rtattr *rta;
	int len;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	if (!nest)
		return;
	len = RTA_PAYLOAD(nest);
	for (rta = RTA_DATA(nest); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		int type = rta->rta_type & NLA_TYPE_MASK;

		if (type <= max && !tb[type])
			tb[type] = rta;
	}
}

/* Unsigned value of an attribute of exactly @width bytes, else false. */
static bool aiclass_get_attr(const struct rtattr *rta, unsigned int width,
			     __u64 *val)
{
	__u8 u8;
	__u16 u16;
	__u32 u32;

	if (!rta || RTA_PAYLOAD(rta) != width)
		return false;
	switch (width) {
	case 1:
		memcpy(&u8, RTA_DATA(rta), 1);
		*val = u8;
		return true;
	case 2:
		memcpy(&u16, RTA_DATA(rta), 2);
		*val = u16;
		return true;
	case 4:
		memcpy(&u32, RTA_DATA(rta), 4);
		*val = u32;
		return true;
	case 8:
		memcpy(val, RTA_DATA(rta), 8);
		return true;
	}
	return false;
}

/* Exact, so that get_size() reads back the same number. */
static const char *aiclass_fmt_size(char *buf, size_t len, __u64 v)
{
	if (v && v % (1024 * 1024 * 1024) == 0)
		snprintf(buf, len, "%" PRIu64 "Gb", (uint64_t)(v >> 30));
	else if (v && v % (1024 * 1024) == 0)
		snprintf(buf, len, "%" PRIu64 "Mb", (uint64_t)(v >> 20));
	else if (v && v % 1024 == 0)
		snprintf(buf, len, "%" PRIu64 "Kb", (uint64_t)(v >> 10));
	else
		snprintf(buf, len, "%" PRIu64 "b", (uint64_t)v);
	return buf;
}

/* Exact microseconds, so that get_time() reads back the same number. */
static const char *aiclass_fmt_usecs(char *buf, size_t len, __u64 us)
{
	if (us && us % 1000000 == 0)
		snprintf(buf, len, "%" PRIu64 "s", (uint64_t)(us / 1000000));
	else if (us && us % 1000 == 0)
		snprintf(buf, len, "%" PRIu64 "ms", (uint64_t)(us / 1000));
	else
		snprintf(buf, len, "%" PRIu64 "us", (uint64_t)us);
	return buf;
}

/* Exact bits per second, so that get_rate64() reads back the same. */
static const char *aiclass_fmt_rate(char *buf, size_t len, __u64 bytes)
{
	__u64 bits = bytes * 8;

	if (bytes > UINT64_MAX / 8)
		snprintf(buf, len, "%" PRIu64 "bps", (uint64_t)bytes);
	else if (bits && bits % 1000000000 == 0)
		snprintf(buf, len, "%" PRIu64 "Gbit",
			 (uint64_t)(bits / 1000000000));
	else if (bits && bits % 1000000 == 0)
		snprintf(buf, len, "%" PRIu64 "Mbit",
			 (uint64_t)(bits / 1000000));
	else if (bits && bits % 1000 == 0)
		snprintf(buf, len, "%" PRIu64 "Kbit", (uint64_t)(bits / 1000));
	else
		snprintf(buf, len, "%" PRIu64 "bit", (uint64_t)bits);
	return buf;
}

/* Human, approximate: for stats only. */
static const char *aiclass_fmt_ns(char *buf, size_t len, __u64 ns)
{
	if (ns >= 1000000000)
		snprintf(buf, len, "%.2fs", ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else if (ns >= 1000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else
		snprintf(buf, len, "%" PRIu64 "ns", (uint64_t)ns);
	return buf;
}

static void aiclass_print_text(const char *fmt, const char *s)
{
	print_color_string(PRINT_FP, TC_COLOR_NONE, NULL, fmt, s);
}

static void aiclass_print_json_u64(const char *key, __u64 v)
{
	print_color_u64(PRINT_JSON, TC_COLOR_NONE, key, NULL, v);
}

/* "key value " in text, "key": raw in JSON. */
static void aiclass_print_value(const char *key, enum aiclass_unit unit,
				__u64 v)
{
	char buf[64];

	aiclass_print_json_u64(key, v);
	switch (unit) {
	case AIC_BYTES:
	case AIC_THRESHOLDS:
		aiclass_fmt_size(buf, sizeof(buf), v);
		break;
	case AIC_USECS:
		aiclass_fmt_usecs(buf, sizeof(buf), v);
		break;
	case AIC_RATE:
		aiclass_fmt_rate(buf, sizeof(buf), v);
		break;
	case AIC_CLASS:
	case AIC_PRIOMAP:
		snprintf(buf, sizeof(buf), "%" PRIx64, (uint64_t)v);
		break;
	default:
		snprintf(buf, sizeof(buf), "%" PRIu64, (uint64_t)v);
		break;
	}
	if (key) {
		aiclass_print_text("%s ", key);
		aiclass_print_text("%s ", buf);
	} else {
		aiclass_print_text(" %s", buf);
	}
}

/* A nest of u32 elements (weights, thresholds). */
static void aiclass_print_list(const struct aiclass_opt *o,
			       struct rtattr *nest, int elem)
{
	struct rtattr *rta;
	__u64 v;
	int len;

	open_json_array(PRINT_JSON, o->name);
	/* lat_bands 1 has no thresholds: "thresholds" alone would not
	 * read back, so the text leaves the keyword out.
	 */
	if (RTA_PAYLOAD(nest))
		aiclass_print_text("%s", o->name);
	len = RTA_PAYLOAD(nest);
	for (rta = RTA_DATA(nest); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if ((rta->rta_type & NLA_TYPE_MASK) != elem ||
		    !aiclass_get_attr(rta, 4, &v))
			continue;
		aiclass_print_value(NULL, o->unit, v);
	}
	close_json_array(PRINT_JSON, NULL);
	if (RTA_PAYLOAD(nest))
		aiclass_print_text("%s", " ");
}

static void aiclass_print_priomap(const struct aiclass_opt *o,
				  struct rtattr *rta)
{
	const __u8 *map = RTA_DATA(rta);
	unsigned int i;

	if (RTA_PAYLOAD(rta) != AICLASS_PRIOMAP_LEN)
		return;
	open_json_array(PRINT_JSON, o->name);
	aiclass_print_text("%s", o->name);
	for (i = 0; i < AICLASS_PRIOMAP_LEN; i++) {
		char buf[8];

		aiclass_print_json_u64(NULL, map[i]);
		if (map[i] == AICLASS_PRIOMAP_AUTO)
			snprintf(buf, sizeof(buf), "auto");
		else
			snprintf(buf, sizeof(buf), "%x", map[i]);
		aiclass_print_text(" %s", buf);
	}
	close_json_array(PRINT_JSON, NULL);
	aiclass_print_text("%s", " ");
}

static int aiclass_print_opt(struct qdisc_util *qu __attribute__((unused)),
			     FILE *f __attribute__((unused)),
			     struct rtattr *opt)
{
	struct rtattr *tb[TCA_AICLASS_MAX + 1];
	size_t i;
	__u64 v;

	if (!opt)
		return 0;
	aiclass_nest(tb, TCA_AICLASS_MAX, opt);

	for (i = 0; i < ARRAY_SIZE(aiclass_opts); i++) {
		const struct aiclass_opt *o = &aiclass_opts[i];
		struct rtattr *rta = tb[o->attr];

		if (!rta)
			continue;
		switch (o->unit) {
		case AIC_WEIGHTS:
			aiclass_print_list(o, rta, TCA_AICLASS_WEIGHT);
			break;
		case AIC_THRESHOLDS:
			aiclass_print_list(o, rta, TCA_AICLASS_THRESHOLD);
			break;
		case AIC_PRIOMAP:
			aiclass_print_priomap(o, rta);
			break;
		case AIC_PORT:
			if (!aiclass_get_attr(rta, o->width, &v))
				break;
			if (v) {
				aiclass_print_value(o->name, AIC_COUNT, v);
			} else {
				aiclass_print_json_u64(o->name, v);
				aiclass_print_text("%s ", "noroce");
			}
			break;
		default:
			if (aiclass_get_attr(rta, o->width, &v))
				aiclass_print_value(o->name, o->unit, v);
			break;
		}
	}
	return 0;
}

static const char *aiclass_kind_name(__u64 kind)
{
	switch (kind) {
	case AICLASS_KIND_LATENCY:
		return "latency";
	case AICLASS_KIND_TRAINING:
		return "training";
	}
	return "unknown";
}

static int aiclass_print_copt(struct qdisc_util *qu __attribute__((unused)),
			      FILE *f __attribute__((unused)),
			      struct rtattr *opt)
{
	struct rtattr *tb[TCA_AICLASS_CLASS_MAX + 1];
	__u64 v;

	if (!opt)
		return 0;
	aiclass_nest(tb, TCA_AICLASS_CLASS_MAX, opt);
	if (aiclass_get_attr(tb[TCA_AICLASS_CLASS_KIND], 1, &v))
		print_color_string(PRINT_ANY, TC_COLOR_NONE, "kind", "%s ",
				   aiclass_kind_name(v));
	if (aiclass_get_attr(tb[TCA_AICLASS_CLASS_WEIGHT], 4, &v))
		aiclass_print_value("weight", AIC_COUNT, v);
	return 0;
}

enum aiclass_stat_fmt { AIC_ST_COUNT, AIC_ST_BYTES, AIC_ST_NS, AIC_ST_KIND };

/* One stats attribute: where it goes and how it reads. */
struct aiclass_stat {
	int attr;
	unsigned int width;	/* 8 (u64), 4 (u32, or s32 if is_signed), 1 */
	const char *key;	/* JSON key */
	const char *label;	/* text label */
	int line;		/* text line it belongs to */
	enum aiclass_stat_fmt fmt;
	bool is_signed;
};

#define AIC_STAT(_attr, _width, _key, _label, _line, _fmt, _signed)	\
	{ .attr = (_attr), .width = (_width), .key = (_key),		\
	  .label = (_label), .line = (_line), .fmt = (_fmt),		\
	  .is_signed = (_signed) }
#define AIC_U64(_attr, _key, _label, _line)				\
	AIC_STAT(_attr, 8, _key, _label, _line, AIC_ST_COUNT, false)

static const char *const aiclass_qstat_lines[] = {
	"classified", NULL, "dropped", NULL,
};

static const struct aiclass_stat aiclass_qstats[] = {
	AIC_U64(TCA_AICLASS_STATS_CLS_PRIORITY, "cls_priority", "priority", 0),
	AIC_U64(TCA_AICLASS_STATS_CLS_FILTER, "cls_filter", "filter", 0),
	AIC_U64(TCA_AICLASS_STATS_CLS_PRIOMAP, "cls_priomap", "priomap", 0),
	AIC_U64(TCA_AICLASS_STATS_CLS_ROCE, "cls_roce", "roce", 0),
	AIC_U64(TCA_AICLASS_STATS_CLS_AUTO, "cls_auto", "auto", 0),
	AIC_U64(TCA_AICLASS_STATS_DEMOTIONS, "demotions", "demotions", 1),
	AIC_U64(TCA_AICLASS_STATS_IDLE_RESETS, "idle_resets", "idle_resets", 1),
	AIC_U64(TCA_AICLASS_STATS_FLOWS_MOVED, "flows_moved", "flows_moved", 1),
	AIC_U64(TCA_AICLASS_STATS_FLOWS_SHARED, "flows_shared", "flows_shared",
		1),
	AIC_U64(TCA_AICLASS_STATS_GUARD_YIELDS, "guard_yields", "guard_yields",
		1),
	AIC_U64(TCA_AICLASS_STATS_THROTTLED, "throttled", "throttled", 1),
	AIC_U64(TCA_AICLASS_STATS_CE_MARKS, "ce_marks", "ce_marks", 1),
	AIC_U64(TCA_AICLASS_STATS_DROP_OVERLIMIT, "drop_overlimit",
		"overlimit", 2),
	AIC_U64(TCA_AICLASS_STATS_DROP_MEMORY, "drop_memory", "memory", 2),
	AIC_U64(TCA_AICLASS_STATS_DROP_FILTER, "drop_filter", "filter", 2),
	AIC_U64(TCA_AICLASS_STATS_DROP_BAND, "drop_band", "band", 2),
	AIC_U64(TCA_AICLASS_STATS_STOLEN, "stolen", "stolen", 2),
	AIC_STAT(TCA_AICLASS_STATS_ACTIVE_FLOWS, 4, "active_flows",
		 "active_flows", 3, AIC_ST_COUNT, false),
	AIC_STAT(TCA_AICLASS_STATS_MEMORY_USED, 4, "memory_used",
		 "memory_used", 3, AIC_ST_BYTES, false),
};

static const char *const aiclass_cstat_lines[] = { NULL };

static const struct aiclass_stat aiclass_cstats[] = {
	AIC_STAT(TCA_AICLASS_CSTATS_KIND, 1, "kind", "kind", 0, AIC_ST_KIND,
		 false),
	AIC_STAT(TCA_AICLASS_CSTATS_WEIGHT, 4, "weight", "weight", 0,
		 AIC_ST_COUNT, false),
	AIC_STAT(TCA_AICLASS_CSTATS_DEFICIT, 4, "deficit", "deficit", 0,
		 AIC_ST_COUNT, true),
	AIC_STAT(TCA_AICLASS_CSTATS_ACTIVE_FLOWS, 4, "active_flows",
		 "active_flows", 0, AIC_ST_COUNT, false),
	AIC_STAT(TCA_AICLASS_CSTATS_SOJOURN_AVG, 4, "sojourn_avg",
		 "sojourn_avg", 0, AIC_ST_NS, false),
	AIC_STAT(TCA_AICLASS_CSTATS_SOJOURN_MAX, 4, "sojourn_max",
		 "sojourn_max", 0, AIC_ST_NS, false),
	AIC_U64(TCA_AICLASS_CSTATS_CE_MARKS, "ce_marks", "ce_marks", 0),
};

static void aiclass_print_stats(struct rtattr *nest, int max,
				const struct aiclass_stat *st, size_t nst,
				const char *const *lines, size_t nlines)
{
	struct rtattr *tb[32];
	bool done = false, *lines_done = &done;
	size_t line, i;

	if (max >= (int)ARRAY_SIZE(tb))
		max = ARRAY_SIZE(tb) - 1;
	aiclass_nest(tb, max, nest);

	for (line = 0; line < nlines; line++) {
		bool started = false;

		for (i = 0; i < nst; i++) {
			char buf[64];
			__u64 v;

			if (st[i].line != (int)line || st[i].attr > max ||
			    !aiclass_get_attr(tb[st[i].attr], st[i].width, &v))
				continue;
			if (st[i].fmt == AIC_ST_KIND) {
				/* text has it in the class options already */
				print_color_string(PRINT_JSON, TC_COLOR_NONE,
						   st[i].key, NULL,
						   aiclass_kind_name(v));
				continue;
			}
			if (!started) {
				/* tc ends its own stats with a newline */
				aiclass_print_text("%s", *lines_done ? "\n " : " ");
				if (lines[line])
					aiclass_print_text(" %s", lines[line]);
				*lines_done = started = true;
			}
			if (st[i].is_signed) {
				__s32 s = (__s32)(__u32)v;

				print_color_int(PRINT_JSON, TC_COLOR_NONE,
						st[i].key, NULL, s);
				snprintf(buf, sizeof(buf), "%d", s);
				aiclass_print_text(" %s", st[i].label);
				aiclass_print_text(" %s", buf);
				continue;
			}
			aiclass_print_json_u64(st[i].key, v);
			if (st[i].fmt == AIC_ST_BYTES)
				aiclass_fmt_size(buf, sizeof(buf), v);
			else if (st[i].fmt == AIC_ST_NS)
				aiclass_fmt_ns(buf, sizeof(buf), v);
			else
				snprintf(buf, sizeof(buf), "%" PRIu64,
					 (uint64_t)v);
			aiclass_print_text(" %s", st[i].label);
			aiclass_print_text(" %s", buf);
		}
	}
}

static int aiclass_print_xstats(struct qdisc_util *qu __attribute__((unused)),
				FILE *f __attribute__((unused)),
				struct rtattr *xstats)
{
	struct rtattr *tb[TCA_AICLASS_XSTATS_MAX + 1];

	if (!xstats)
		return 0;
	aiclass_nest(tb, TCA_AICLASS_XSTATS_MAX, xstats);
	if (tb[TCA_AICLASS_XSTATS_QDISC])
		aiclass_print_stats(tb[TCA_AICLASS_XSTATS_QDISC],
				    TCA_AICLASS_STATS_MAX, aiclass_qstats,
				    ARRAY_SIZE(aiclass_qstats),
				    aiclass_qstat_lines,
				    ARRAY_SIZE(aiclass_qstat_lines));
	if (tb[TCA_AICLASS_XSTATS_CLASS])
		aiclass_print_stats(tb[TCA_AICLASS_XSTATS_CLASS],
				    TCA_AICLASS_CSTATS_MAX, aiclass_cstats,
				    ARRAY_SIZE(aiclass_cstats),
				    aiclass_cstat_lines,
				    ARRAY_SIZE(aiclass_cstat_lines));
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
