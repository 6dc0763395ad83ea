// SPDX-License-Identifier: GPL-2.0
/*
 * opts.c	the qdisc options of aiclass: one table, and from it the
 *		grammar both front ends use (parse, cross-check, print as text
 *		and JSON), the TCA_OPTIONS payload (encode, decode) and the
 *		usage text.
 *
 * Grammar: "keyword value" in tc's units (sizes 64Kb, times 10ms, rates
 * 100Mbit, classes 1:11 or the hex minor 11); an option that can be off
 * takes its off word (ce_threshold off, forget off, rate unlimited) or its
 * negated keyword alone (noroce, noecn, no_split_gso); lists (weights,
 * thresholds, priomap, slos) run up to the next keyword; dscpmap is one word,
 * DSCP:MINOR pairs joined by commas, or auto.  Printing writes every
 * option in this same form, so that what is printed parses back.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "aiclass.h"
#include "nla.h"

_Static_assert(TCA_AICLASS_MAX < 64, "aic_config.have is 64 bits");

#define OPT(_name, _attr, _unit, _width, _min, _max, _def, _arg, _help) \
	{ .name = (_name), .attr = (_attr), .unit = (_unit),		\
	  .width = (_width), .min = (_min), .max = (_max), .def = (_def),\
	  .arg = (_arg), .help = (_help) }

/* In "tc qdisc add" order; printed in this order too. */
const struct aic_opt aic_opts[] = {
	OPT("lat_bands", TCA_AICLASS_LAT_BANDS, AIC_COUNT, 1,
	    1, AICLASS_MAX_LAT_BANDS, AICLASS_DEF_LAT_BANDS, "N",
	    "latency bands 1:1 .. 1:N"),
	OPT("train_classes", TCA_AICLASS_TRAIN_CLASSES, AIC_COUNT, 1,
	    1, AICLASS_MAX_TRAIN_CLASSES, AICLASS_DEF_TRAIN_CLASSES, "M",
	    "training classes from 1:11 up"),
	OPT("weights", TCA_AICLASS_WEIGHTS, AIC_WEIGHTS, 4,
	    AICLASS_MIN_WEIGHT, AICLASS_MAX_WEIGHT, AICLASS_DEF_WEIGHT,
	    "W...", "DRR weights of the training classes from 1:11 up"),
	OPT("burst", TCA_AICLASS_BURST, AIC_BYTES, 4,
	    AICLASS_MIN_BURST, AICLASS_MAX_BURST, AICLASS_DEF_BURST, "BYTES",
	    "how far latency may run ahead of backlogged training"),
	OPT("train_share", TCA_AICLASS_TRAIN_SHARE, AIC_COUNT, 1,
	    0, AICLASS_MAX_TRAIN_SHARE, AICLASS_DEF_TRAIN_SHARE, "PERCENT",
	    "percent of the bytes kept for backlogged training"),
	OPT("thresholds", TCA_AICLASS_THRESHOLDS, AIC_THRESHOLDS, 4,
	    AICLASS_MIN_THRESHOLD, AICLASS_MAX_ELEPHANT - 1, 0, "BYTES...",
	    "burst sizes that leave a band for the next (lat_bands - 1)"),
	OPT("elephant", TCA_AICLASS_ELEPHANT, AIC_BYTES, 4,
	    AICLASS_MIN_ELEPHANT, AICLASS_MAX_ELEPHANT, AICLASS_DEF_ELEPHANT,
	    "BYTES", "burst size from which a flow is training"),
	OPT("idle", TCA_AICLASS_IDLE, AIC_USECS, 4,
	    AICLASS_MIN_IDLE, AICLASS_MAX_IDLE, AICLASS_DEF_IDLE, "TIME",
	    "quiet time after which a flow starts a new burst"),
	{ .name = "flows", .attr = TCA_AICLASS_FLOWS, .unit = AIC_COUNT,
	  .width = 4, .min = AICLASS_MIN_FLOWS, .max = AICLASS_MAX_FLOWS,
	  .def = AICLASS_DEF_FLOWS, .pow2 = true, .arg = "N",
	  .help = "flow table size, a power of two" },
	OPT("limit", TCA_AICLASS_LIMIT, AIC_COUNT, 4,
	    AICLASS_MIN_LIMIT, AICLASS_MAX_LIMIT, AICLASS_DEF_LIMIT,
	    "PACKETS", "packets queued in all classes"),
	OPT("memory_limit", TCA_AICLASS_MEMORY_LIMIT, AIC_BYTES, 4,
	    AICLASS_MIN_MEMORY_LIMIT, AICLASS_MAX_MEMORY_LIMIT,
	    AICLASS_DEF_MEMORY_LIMIT, "BYTES", "bytes of truesize queued"),
	{ .name = "ce_threshold", .attr = TCA_AICLASS_CE_THRESHOLD,
	  .unit = AIC_USECS, .width = 4, .min = 1,
	  .max = AICLASS_MAX_CE_THRESHOLD, .def = 0, .off = "off",
	  .arg = "TIME|off",
	  .help = "sojourn above which training packets get CE" },
	{ .name = "rate", .attr = TCA_AICLASS_RATE, .unit = AIC_RATE,
	  .width = 8, .min = AICLASS_MIN_RATE, .max = UINT64_MAX, .def = 0,
	  .off = "unlimited", .arg = "RATE|unlimited",
	  .help = "built-in shaper" },
	{ .name = "roce_port", .attr = TCA_AICLASS_ROCE_PORT,
	  .unit = AIC_PORT, .width = 2, .min = 1, .max = 65535,
	  .def = AICLASS_DEF_ROCE_PORT, .neg = "noroce", .arg = "PORT",
	  .help = "UDP port of RoCEv2 (noroce: no RoCE rule)" },
	OPT("priomap", TCA_AICLASS_PRIOMAP, AIC_PRIOMAP, 1,
	    0, AIC_TRAIN_MINOR_LAST, AICLASS_PRIOMAP_AUTO, "CLASS|auto...",
	    "class by skb->priority & 15, from 0 up"),
	OPT("dscpmap", TCA_AICLASS_DSCPMAP, AIC_DSCPMAP, 1,
	    0, AIC_TRAIN_MINOR_LAST, AICLASS_DSCPMAP_AUTO,
	    "DSCP:MINOR,...|auto", "class by DSCP (26:11,46:1)"),
	OPT("default_class", TCA_AICLASS_DEFAULT_CLASS, AIC_CLASS, 1,
	    AICLASS_TRAIN_MINOR_MIN, AIC_TRAIN_MINOR_LAST,
	    AICLASS_TRAIN_MINOR_MIN, "CLASS",
	    "training class of RoCE data and elephants"),
	OPT("lat_limit", TCA_AICLASS_LAT_LIMIT, AIC_COUNT, 4,
	    1, AICLASS_MAX_LIMIT, AICLASS_DEF_LAT_LIMIT, "PACKETS",
	    "packets per latency band"),
	{ .name = "quantum", .attr = TCA_AICLASS_QUANTUM, .unit = AIC_BYTES,
	  .width = 4, .min = AICLASS_MIN_QUANTUM, .max = AICLASS_MAX_QUANTUM,
	  .def_dynamic = true, .arg = "BYTES",
	  .help = "DRR quantum of a flow and a weight-1 class (default MTU)" },
	OPT("target", TCA_AICLASS_TARGET, AIC_USECS, 4,
	    AICLASS_MIN_TARGET, AICLASS_MAX_TARGET, AICLASS_DEF_TARGET,
	    "TIME", "CoDel target sojourn of every flow queue"),
	OPT("interval", TCA_AICLASS_INTERVAL, AIC_USECS, 4,
	    AICLASS_MIN_INTERVAL, AICLASS_MAX_INTERVAL, AICLASS_DEF_INTERVAL,
	    "TIME", "CoDel interval"),
	{ .name = "ecn", .attr = TCA_AICLASS_ECN, .unit = AIC_FLAG,
	  .width = 1, .min = 0, .max = 1, .def = 1, .neg = "noecn",
	  .help = "CoDel marks ECT packets (noecn: drops them)" },
	{ .name = "forget", .attr = TCA_AICLASS_FORGET, .unit = AIC_USECS,
	  .width = 4, .min = 1, .max = AICLASS_MAX_FORGET,
	  .def = AICLASS_DEF_FORGET, .off = "off", .arg = "TIME|off",
	  .help = "how long an elephant's flow is remembered as training" },
	{ .name = "split_gso", .attr = TCA_AICLASS_SPLIT_GSO,
	  .unit = AIC_FLAG, .width = 1, .min = 0, .max = 1, .def = 1,
	  .neg = "no_split_gso",
	  .help = "segment GSO packets when the link runs below 1Gbit" },
	{ .name = "slos", .attr = TCA_AICLASS_SLOS, .unit = AIC_SLOS,
	  .width = 4, .min = AICLASS_MIN_SLO, .max = AICLASS_MAX_SLO,
	  .def = 0, .off = "off", .arg = "TIME|off...",
	  .help = "latency SLO (sojourn) of the bands from 1:1 up" },
	{ .name = "slo_training", .attr = TCA_AICLASS_SLO_TRAINING,
	  .unit = AIC_FLAG, .width = 1, .min = 0, .max = 1, .def = 0,
	  .neg = "noslo_training",
	  .help = "the last band's SLO may downgrade into default_class" },
};

const unsigned int aic_nopts = ARRAY_SIZE(aic_opts);

const struct aic_opt *aic_opt_by_name(const char *word)
{
	unsigned int i;

	for (i = 0; i < aic_nopts; i++)
		if (!strcmp(aic_opts[i].name, word) ||
		    (aic_opts[i].neg && !strcmp(aic_opts[i].neg, word)))
			return &aic_opts[i];
	return NULL;
}

const struct aic_opt *aic_opt_by_attr(int attr)
{
	unsigned int i;

	for (i = 0; i < aic_nopts; i++)
		if (aic_opts[i].attr == attr)
			return &aic_opts[i];
	return NULL;
}

bool aic_is_keyword(const char *word)
{
	return aic_opt_by_name(word) || !strcmp(word, "help") ||
	       !strcmp(word, "weight") || !strcmp(word, "slo");
}

static int say(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int say(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* ------------------------------------------------------------- values */

char *aic_fmt_value(char *buf, size_t len, const struct aic_opt *o,
		    uint64_t v)
{
	if (v == 0 && o->off) {
		snprintf(buf, len, "%s", o->off);
		return buf;
	}
	switch (o->unit) {
	case AIC_BYTES:
	case AIC_THRESHOLDS:
		return aic_fmt_size(buf, len, v);
	case AIC_USECS:
	case AIC_SLOS:
		return aic_fmt_time(buf, len, v);
	case AIC_RATE:
		return aic_fmt_rate(buf, len, v);
	case AIC_CLASS:
	case AIC_PRIOMAP:
	case AIC_DSCPMAP:
		if (v == AICLASS_PRIOMAP_AUTO)
			snprintf(buf, len, "auto");
		else
			snprintf(buf, len, "%llx", (unsigned long long)v);
		return buf;
	default:
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return buf;
	}
}

/*
 * A class minor that aiclass can have, for class-valued options.  A major
 * given with it is kept in c, once for all of them: whether it is the
 * qdisc's own is for aic_check_major() to say, when the handle is known.
 */
static int get_class(struct aic_config *c, const struct aic_opt *o,
		     const char *s, uint64_t *v, char *err, size_t len)
{
	uint32_t major, minor;

	if (aic_parse_classid(s, &major, &minor))
		return say(err, len, "Illegal \"%s\": \"%s\" is not a class id",
			   o->name, s);
	if (!aic_minor_ok(minor))
		return say(err, len,
			   "Illegal \"%s\": \"%s\" is not an aiclass class (1:1..1:%x, 1:%x..1:%x)",
			   o->name, s, AICLASS_LAT_MINOR_MAX,
			   AICLASS_TRAIN_MINOR_MIN, AIC_TRAIN_MINOR_LAST);
	if (major && c->major && major != c->major)
		return say(err, len,
			   "Illegal \"%s\": \"%s\" and \"%s\" (%s) name two qdiscs, %x: and %x:",
			   o->name, s, c->major_word, c->major_opt, major,
			   c->major);
	if (major && !c->major) {
		c->major = major;
		c->major_opt = o->name;
		snprintf(c->major_word, sizeof(c->major_word), "%s", s);
	}
	*v = minor;
	return 0;
}

int aic_check_major(const struct aic_config *c, uint32_t handle, char *err,
		    size_t len)
{
	char *colon;
	char minor[16];

	if (!c->major || c->major == handle >> 16)
		return 0;
	snprintf(minor, sizeof(minor), "%s", c->major_word);
	colon = strchr(c->major_word, ':');
	if (colon)
		snprintf(minor, sizeof(minor), "%s", colon + 1);
	if (!handle)
		return say(err, len,
			   "Illegal \"%s\": \"%s\" names qdisc %x:, but no handle is given (the kernel picks one): give \"handle %x:\" or the minor alone (\"%s\")",
			   c->major_opt, c->major_word, c->major, c->major,
			   minor);
	return say(err, len,
		   "Illegal \"%s\": \"%s\" is not a class of qdisc %x: (its classes are %x:MINOR, or the minor alone: \"%s\")",
		   c->major_opt, c->major_word, handle >> 16, handle >> 16,
		   minor);
}

/* One scalar value (or list element) of o; 0 or -1 with err. */
static int get_value(struct aic_config *c, const struct aic_opt *o,
		     const char *s, uint64_t *v, char *err, size_t len)
{
	char lo[32], hi[32];
	int rc;

	if (o->off && !strcmp(s, o->off)) {
		*v = 0;
		return 0;
	}
	switch (o->unit) {
	case AIC_BYTES:
	case AIC_THRESHOLDS:
		rc = aic_parse_size(s, v);
		break;
	case AIC_USECS:
	case AIC_SLOS:
		rc = aic_parse_time(s, v);
		break;
	case AIC_RATE:
		rc = aic_parse_rate(s, v);
		break;
	case AIC_CLASS:
	case AIC_PRIOMAP:
		if (o->unit == AIC_PRIOMAP && !strcmp(s, "auto")) {
			*v = AICLASS_PRIOMAP_AUTO;
			return 0;
		}
		if (get_class(c, o, s, v, err, len))
			return -1;
		if (o->unit == AIC_CLASS && (*v < o->min || *v > o->max))
			return say(err, len, "Illegal \"%s\": must be 1:%x..1:%x",
				   o->name, (unsigned int)o->min,
				   (unsigned int)o->max);
		return 0;
	default:
		rc = aic_parse_count(s, v);
		break;
	}
	if (rc == -EDOM && (o->unit == AIC_USECS || o->unit == AIC_SLOS))
		return say(err, len,
			   "Illegal \"%s\": \"%s\" is not a whole number of microseconds",
			   o->name, s);
	if (rc == -EDOM)
		return say(err, len,
			   "Illegal \"%s\": \"%s\" is below %s, and 0 would be %s",
			   o->name, s, o->unit == AIC_RATE ? "8bit" : "1 byte",
			   o->off ? o->off : "refused");
	if (rc)
		return say(err, len, "Illegal \"%s\": \"%s\" is not %s",
			   o->name, s,
			   o->unit == AIC_BYTES || o->unit == AIC_THRESHOLDS ?
			   "a size (1514, 64Kb, 2Mb)" :
			   o->unit == AIC_USECS || o->unit == AIC_SLOS ?
			   "a time (500us, 10ms, 1s; tc has no ns)" :
			   o->unit == AIC_RATE ? "a rate (100Mbit, 10Gbit)" :
			   "a number");
	/* 0 is off, as the off word or the negated keyword says */
	if (*v == 0 && (o->off || o->neg))
		return 0;
	if (*v < o->min || *v > o->max || (o->width < 8 &&
	    *v >> (8 * o->width)))
		return say(err, len, "Illegal \"%s\": must be %s%s%s..%s%s%s%s",
			   o->name, o->off ? o->off : "",
			   o->off ? " or " : "",
			   aic_fmt_value(lo, sizeof(lo), o, o->min),
			   aic_fmt_value(hi, sizeof(hi), o, o->max),
			   o->neg ? " or 0 (" : "", o->neg ? o->neg : "",
			   o->neg ? ")" : "");
	if (o->pow2 && (*v & (*v - 1)))
		return say(err, len, "Illegal \"%s\": must be a power of two",
			   o->name);
	return 0;
}

/* DSCP by number or name: 46, ef, cs6, af41, le, va. */
static int get_dscp(const char *s, unsigned int *dscp)
{
	uint64_t v;

	if (!strcasecmp(s, "ef"))
		v = 46;
	else if (!strcasecmp(s, "va"))
		v = 44;
	else if (!strcasecmp(s, "le"))
		v = 1;
	else if ((s[0] == 'c' || s[0] == 'C') && (s[1] == 's' || s[1] == 'S') &&
		 s[2] >= '0' && s[2] <= '7' && !s[3])
		v = 8 * (s[2] - '0');
	else if ((s[0] == 'a' || s[0] == 'A') && (s[1] == 'f' || s[1] == 'F') &&
		 s[2] >= '1' && s[2] <= '4' && s[3] >= '1' && s[3] <= '3' &&
		 !s[4])
		v = 8 * (s[2] - '0') + 2 * (s[3] - '0');
	else if (aic_parse_count(s, &v) || v >= AICLASS_DSCPMAP_LEN)
		return -1;
	*dscp = v;
	return 0;
}

/* "auto" or "DSCP:MINOR[,DSCP:MINOR]..." */
static int get_dscpmap(struct aic_config *c, const struct aic_opt *o,
		       const char *s, uint8_t *map, char *err, size_t len)
{
	char word[512], *save = NULL, *e;

	memset(map, AICLASS_DSCPMAP_AUTO, AICLASS_DSCPMAP_LEN);
	if (!strcmp(s, "auto"))
		return 0;
	if (strlen(s) >= sizeof(word))
		return say(err, len, "Illegal \"%s\": too long", o->name);
	strcpy(word, s);
	for (e = strtok_r(word, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(e, ':');
		unsigned int dscp;
		uint64_t minor;

		if (!colon)
			return say(err, len,
				   "Illegal \"%s\": \"%s\" is not DSCP:MINOR (26:11)",
				   o->name, e);
		*colon = '\0';
		if (get_dscp(e, &dscp))
			return say(err, len,
				   "Illegal \"%s\": \"%s\" is not a DSCP (0..63, ef, cs6, af41)",
				   o->name, e);
		if (map[dscp] != AICLASS_DSCPMAP_AUTO)
			return say(err, len, "Illegal \"%s\": DSCP %u given twice",
				   o->name, dscp);
		if (!strcmp(colon + 1, "auto"))
			continue;
		if (get_class(c, o, colon + 1, &minor, err, len))
			return -1;
		map[dscp] = minor;
	}
	return 0;
}

/* ------------------------------------------------------------- parsing */

int aic_parse_opt(struct aic_config *c, uint64_t *seen, int argc,
		  char **argv, char *err, size_t len)
{
	const struct aic_opt *o = aic_opt_by_name(argv[0]);
	bool neg;
	uint64_t v;
	int i;

	if (!o)
		return 0;
	neg = o->neg && !strcmp(argv[0], o->neg);
	if (*seen & AIC_BIT(o->attr)) {
		if (o->neg)
			return say(err, len, "Duplicate \"%s\" or \"%s\"",
				   o->name, o->neg);
		return say(err, len, "Duplicate \"%s\"", o->name);
	}
	*seen |= AIC_BIT(o->attr);
	c->have |= AIC_BIT(o->attr);
	if (neg || o->unit == AIC_FLAG) {
		c->val[o->attr] = !neg;
		return 1;
	}
	if (argc < 2)
		return say(err, len, "Illegal \"%s\": value missing", o->name);

	switch (o->unit) {
	case AIC_WEIGHTS:
	case AIC_THRESHOLDS:
	case AIC_PRIOMAP:
	case AIC_SLOS:
		if (o->unit == AIC_PRIOMAP)
			memset(c->priomap, AICLASS_PRIOMAP_AUTO,
			       sizeof(c->priomap));
		c->nweights = o->unit == AIC_WEIGHTS ? 0 : c->nweights;
		c->nthresholds = o->unit == AIC_THRESHOLDS ? 0 :
				 c->nthresholds;
		c->nslos = o->unit == AIC_SLOS ? 0 : c->nslos;
		for (i = 1; i < argc && !aic_is_keyword(argv[i]); i++) {
			if (get_value(c, o, argv[i], &v, err, len))
				return -1;
			if (o->unit == AIC_WEIGHTS) {
				if (c->nweights == ARRAY_SIZE(c->weights))
					return say(err, len,
						   "Illegal \"weights\": at most %u",
						   AICLASS_MAX_TRAIN_CLASSES);
				c->weights[c->nweights++] = v;
			} else if (o->unit == AIC_THRESHOLDS) {
				if (c->nthresholds == ARRAY_SIZE(c->thresholds))
					return say(err, len,
						   "Illegal \"thresholds\": at most %u",
						   AICLASS_MAX_LAT_BANDS - 1);
				c->thresholds[c->nthresholds++] = v;
			} else if (o->unit == AIC_SLOS) {
				if (c->nslos == ARRAY_SIZE(c->slos))
					return say(err, len,
						   "Illegal \"slos\": at most %u, one per latency band",
						   AICLASS_MAX_LAT_BANDS);
				c->slos[c->nslos++] = v;
			} else {
				if (i > AICLASS_PRIOMAP_LEN)
					return say(err, len,
						   "Illegal \"priomap\": at most %u entries",
						   AICLASS_PRIOMAP_LEN);
				c->priomap[i - 1] = v;
			}
		}
		if (i == 1)
			return say(err, len, "Illegal \"%s\": value missing",
				   o->name);
		return i;
	case AIC_DSCPMAP:
		if (get_dscpmap(c, o, argv[1], c->dscpmap, err, len))
			return -1;
		return 2;
	default:
		if (get_value(c, o, argv[1], &c->val[o->attr], err, len))
			return -1;
		return 2;
	}
}

int aic_parse_weight(const char *s, uint32_t *w, char *err, size_t len)
{
	uint64_t v;

	if (aic_parse_count(s, &v) || v < AICLASS_MIN_WEIGHT ||
	    v > AICLASS_MAX_WEIGHT)
		return say(err, len, "Illegal \"weight\": \"%s\" is not %u..%u",
			   s, AICLASS_MIN_WEIGHT, AICLASS_MAX_WEIGHT);
	*w = v;
	return 0;
}

/* A band's SLO (tc class change ... slo TIME, aiclassctl slo C=TIME). */
int aic_parse_slo(const char *s, uint32_t *us, char *err, size_t len)
{
	struct aic_opt o = *aic_opt_by_attr(TCA_AICLASS_SLOS);
	struct aic_config c;
	uint64_t v;

	memset(&c, 0, sizeof(c));
	o.name = "slo";
	if (get_value(&c, &o, s, &v, err, len))
		return -1;
	*us = v;
	return 0;
}

static bool class_exists(unsigned int c, unsigned int lat, unsigned int train)
{
	if (c == AICLASS_PRIOMAP_AUTO)
		return true;
	if (c <= AICLASS_LAT_MINOR_MAX)
		return c <= lat;
	return c <= AICLASS_TRAIN_MINOR_MIN - 1 + train;
}

/* Checks across the options given together; the kernel checks the rest. */
int aic_check_config(const struct aic_config *c, char *err, size_t len)
{
	unsigned int lat = AICLASS_MAX_LAT_BANDS;
	unsigned int train = AICLASS_MAX_TRAIN_CLASSES;
	unsigned int i;

	if (c->have & AIC_BIT(TCA_AICLASS_LAT_BANDS))
		lat = c->val[TCA_AICLASS_LAT_BANDS];
	if (c->have & AIC_BIT(TCA_AICLASS_TRAIN_CLASSES))
		train = c->val[TCA_AICLASS_TRAIN_CLASSES];

	if (c->have & AIC_BIT(TCA_AICLASS_WEIGHTS) && c->nweights > train)
		return say(err, len,
			   "Illegal \"weights\": %u given for %u training classes",
			   c->nweights, train);
	if (c->have & AIC_BIT(TCA_AICLASS_SLOS) && c->nslos > lat)
		return say(err, len,
			   "Illegal \"slos\": %u given for %u latency bands",
			   c->nslos, lat);
	if (c->have & AIC_BIT(TCA_AICLASS_THRESHOLDS)) {
		if (c->have & AIC_BIT(TCA_AICLASS_LAT_BANDS) &&
		    c->nthresholds != lat - 1)
			return say(err, len,
				   "Illegal \"thresholds\": lat_bands %u needs exactly %u",
				   lat, lat - 1);
		for (i = 1; i < c->nthresholds; i++)
			if (c->thresholds[i] <= c->thresholds[i - 1])
				return say(err, len,
					   "Illegal \"thresholds\": must be strictly increasing");
		if (c->have & AIC_BIT(TCA_AICLASS_ELEPHANT) && c->nthresholds &&
		    c->thresholds[c->nthresholds - 1] >=
		    c->val[TCA_AICLASS_ELEPHANT])
			return say(err, len,
				   "Illegal \"thresholds\": must be below \"elephant\"");
	}
	if (c->have & AIC_BIT(TCA_AICLASS_DEFAULT_CLASS) &&
	    !class_exists(c->val[TCA_AICLASS_DEFAULT_CLASS], lat, train))
		return say(err, len,
			   "Illegal \"default_class\": train_classes %u ends at 1:%x",
			   train, AICLASS_TRAIN_MINOR_MIN - 1 + train);
	for (i = 0; c->have & AIC_BIT(TCA_AICLASS_PRIOMAP) &&
	     i < AICLASS_PRIOMAP_LEN; i++)
		if (!class_exists(c->priomap[i], lat, train))
			return say(err, len,
				   "Illegal \"priomap\": class 1:%x does not exist with lat_bands %u train_classes %u",
				   c->priomap[i], lat, train);
	for (i = 0; c->have & AIC_BIT(TCA_AICLASS_DSCPMAP) &&
	     i < AICLASS_DSCPMAP_LEN; i++)
		if (!class_exists(c->dscpmap[i], lat, train))
			return say(err, len,
				   "Illegal \"dscpmap\": class 1:%x does not exist with lat_bands %u train_classes %u",
				   c->dscpmap[i], lat, train);
	return 0;
}

/* ------------------------------------------------ TCA_OPTIONS payload */

struct wbuf {
	char *p;
	size_t len, used;
	bool full;
};

static struct nlattr *put(struct wbuf *w, int type, const void *data,
			  size_t n)
{
	struct nlattr *a = (struct nlattr *)(w->p + w->used);
	size_t total = NLA_ALIGN(NLA_HDRLEN + n);

	if (w->full || w->len - w->used < total) {
		w->full = true;
		return NULL;
	}
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + n;
	if (n)
		memcpy((char *)a + NLA_HDRLEN, data, n);
	memset((char *)a + NLA_HDRLEN + n, 0, total - NLA_HDRLEN - n);
	w->used += total;
	return a;
}

static void put_list(struct wbuf *w, int type, int elem, const uint32_t *v,
		     unsigned int n)
{
	size_t start = w->used;
	struct nlattr *nest = put(w, type | NLA_F_NESTED, NULL, 0);
	unsigned int i;

	for (i = 0; i < n; i++)
		put(w, elem, &v[i], sizeof(v[i]));
	if (nest && !w->full)
		nest->nla_len = w->used - start;
}

int aic_encode_opts(const struct aic_config *c, void *buf, size_t len)
{
	struct wbuf w = { .p = buf, .len = len };
	unsigned int i;

	for (i = 0; i < aic_nopts; i++) {
		const struct aic_opt *o = &aic_opts[i];
		uint64_t v = c->val[o->attr];
		uint8_t u8 = v;
		uint16_t u16 = v;
		uint32_t u32 = v;

		if (!(c->have & AIC_BIT(o->attr)))
			continue;
		switch (o->unit) {
		case AIC_WEIGHTS:
			put_list(&w, o->attr, TCA_AICLASS_WEIGHT, c->weights,
				 c->nweights);
			break;
		case AIC_THRESHOLDS:
			put_list(&w, o->attr, TCA_AICLASS_THRESHOLD,
				 c->thresholds, c->nthresholds);
			break;
		case AIC_SLOS:
			put_list(&w, o->attr, TCA_AICLASS_SLO, c->slos,
				 c->nslos);
			break;
		case AIC_PRIOMAP:
			put(&w, o->attr, c->priomap, sizeof(c->priomap));
			break;
		case AIC_DSCPMAP:
			put(&w, o->attr, c->dscpmap, sizeof(c->dscpmap));
			break;
		default:
			put(&w, o->attr, o->width == 1 ? (void *)&u8 :
				o->width == 2 ? (void *)&u16 :
				o->width == 4 ? (void *)&u32 : (void *)&v,
			    o->width);
			break;
		}
	}
	return w.full ? -1 : (int)w.used;
}

static unsigned int get_list(const struct nlattr *nest, int elem,
			     uint32_t *out, unsigned int max)
{
	const struct nlattr *a;
	unsigned int n = 0;
	uint64_t v;
	int rem;

	aic_nla_for_each(a, AIC_NLA_DATA(nest), AIC_NLA_LEN(nest), rem)
		if ((a->nla_type & NLA_TYPE_MASK) == elem && n < max &&
		    aic_nla_uint(a, 4, &v))
			out[n++] = v;
	return n;
}

void aic_decode_opts(const void *payload, size_t len, struct aic_config *c)
{
	const struct nlattr *a;
	int rem;

	memset(c, 0, sizeof(*c));
	aic_nla_for_each(a, payload, len, rem) {
		int t = a->nla_type & NLA_TYPE_MASK;
		const struct aic_opt *o = aic_opt_by_attr(t);

		if (!o || c->have & AIC_BIT(t))
			continue;	/* unknown (newer module), or again */
		switch (o->unit) {
		case AIC_WEIGHTS:
			c->nweights = get_list(a, TCA_AICLASS_WEIGHT,
					       c->weights,
					       ARRAY_SIZE(c->weights));
			break;
		case AIC_THRESHOLDS:
			c->nthresholds = get_list(a, TCA_AICLASS_THRESHOLD,
						  c->thresholds,
						  ARRAY_SIZE(c->thresholds));
			break;
		case AIC_SLOS:
			c->nslos = get_list(a, TCA_AICLASS_SLO, c->slos,
					    ARRAY_SIZE(c->slos));
			break;
		case AIC_PRIOMAP:
			if (AIC_NLA_LEN(a) != sizeof(c->priomap))
				continue;
			memcpy(c->priomap, AIC_NLA_DATA(a), sizeof(c->priomap));
			break;
		case AIC_DSCPMAP:
			if (AIC_NLA_LEN(a) != sizeof(c->dscpmap))
				continue;
			memcpy(c->dscpmap, AIC_NLA_DATA(a), sizeof(c->dscpmap));
			break;
		default:
			if (!aic_nla_uint(a, o->width, &c->val[t]))
				continue;
			break;
		}
		c->have |= AIC_BIT(t);
	}
}

/* ------------------------------------------------------------ printing */

static void text(const struct aic_printer *p, const char *s)
{
	if (p->text)
		p->text(p->ctx, s);
}

static void print_list(const struct aic_printer *p, const struct aic_opt *o,
		       const uint32_t *v, unsigned int n)
{
	unsigned int i;
	char buf[32];

	/* lat_bands 1 has no thresholds: a bare keyword would not parse */
	if (n)
		text(p, o->name);
	p->arr_open(p->ctx, o->name);
	for (i = 0; i < n; i++) {
		p->u64(p->ctx, NULL, v[i]);
		text(p, " ");
		text(p, aic_fmt_value(buf, sizeof(buf), o, v[i]));
	}
	p->arr_close(p->ctx);
	if (n)
		text(p, " ");
}

static void print_map(const struct aic_printer *p, const struct aic_opt *o,
		      const uint8_t *map, unsigned int n)
{
	unsigned int i, last = 0;
	bool first = true;
	char buf[16];

	text(p, o->name);
	p->arr_open(p->ctx, o->name);
	for (i = 0; i < n; i++) {
		p->u64(p->ctx, NULL, map[i]);
		if (map[i] != AICLASS_PRIOMAP_AUTO)
			last = i + 1;
	}
	p->arr_close(p->ctx);
	if (!last) {
		text(p, " auto ");
		return;
	}
	text(p, " ");
	for (i = 0; i < last; i++) {
		if (o->unit == AIC_PRIOMAP) {
			text(p, aic_fmt_value(buf, sizeof(buf), o, map[i]));
			text(p, " ");
			continue;
		}
		if (map[i] == AICLASS_DSCPMAP_AUTO)
			continue;
		snprintf(buf, sizeof(buf), "%s%u:%x", first ? "" : ",", i,
			 map[i]);
		text(p, buf);
		first = false;
	}
	if (o->unit == AIC_DSCPMAP)
		text(p, " ");
}

void aic_print_opts(const struct aic_config *c, const struct aic_printer *p)
{
	unsigned int i;
	char buf[64];

	for (i = 0; i < aic_nopts; i++) {
		const struct aic_opt *o = &aic_opts[i];
		uint64_t v = c->val[o->attr];

		if (!(c->have & AIC_BIT(o->attr)))
			continue;
		switch (o->unit) {
		case AIC_WEIGHTS:
			print_list(p, o, c->weights, c->nweights);
			continue;
		case AIC_THRESHOLDS:
			print_list(p, o, c->thresholds, c->nthresholds);
			continue;
		case AIC_SLOS:
			print_list(p, o, c->slos, c->nslos);
			continue;
		case AIC_PRIOMAP:
			print_map(p, o, c->priomap, AICLASS_PRIOMAP_LEN);
			continue;
		case AIC_DSCPMAP:
			print_map(p, o, c->dscpmap, AICLASS_DSCPMAP_LEN);
			continue;
		default:
			break;
		}
		p->u64(p->ctx, o->name, v);
		if (o->neg && !v) {
			text(p, o->neg);
		} else if (o->unit == AIC_FLAG) {
			text(p, o->name);
		} else {
			text(p, o->name);
			text(p, " ");
			text(p, aic_fmt_value(buf, sizeof(buf), o, v));
		}
		text(p, " ");
	}
}

void aic_usage_opts(FILE *f)
{
	unsigned int i;
	char lo[32], hi[32], def[32];

	for (i = 0; i < aic_nopts; i++) {
		const struct aic_opt *o = &aic_opts[i];
		char word[64];

		if (o->unit == AIC_FLAG)
			snprintf(word, sizeof(word), "%s | %s", o->name, o->neg);
		else if (o->neg)
			snprintf(word, sizeof(word), "%s %s | %s", o->name,
				 o->arg, o->neg);
		else
			snprintf(word, sizeof(word), "%s %s", o->name, o->arg);
		fprintf(f, "  %-28s %s", word, o->help);
		if (o->unit == AIC_FLAG || o->unit == AIC_PRIOMAP ||
		    o->unit == AIC_DSCPMAP || o->unit == AIC_CLASS) {
			fputc('\n', f);
			continue;
		}
		aic_fmt_value(lo, sizeof(lo), o, o->min);
		aic_fmt_value(hi, sizeof(hi), o, o->max);
		if (o->unit == AIC_RATE)
			snprintf(hi, sizeof(hi), "any");
		if (o->def_dynamic || o->unit == AIC_WEIGHTS ||
		    o->unit == AIC_THRESHOLDS)
			fprintf(f, "; %s..%s\n", lo, hi);
		else
			fprintf(f, "; %s..%s, default %s\n", lo, hi,
				aic_fmt_value(def, sizeof(def), o, o->def));
	}
}
