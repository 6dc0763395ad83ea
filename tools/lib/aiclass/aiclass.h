/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/lib/aiclass/aiclass.h	what the tc plugin (tc/q_aiclass.c) and
 *		aiclassctl share: one table of the qdisc options and one of the
 *		stats (keyword and JSON key, attribute, width, unit, range,
 *		default), their grammar (parse and print, text and JSON), the
 *		class-id parser, tc-style units and a small JSON writer.
 *
 * Attribute numbers come from the UAPI header ../../../sch_aiclass.h only.
 * Nothing here knows libnl or tc: options are encoded into and decoded
 * from the payload of TCA_OPTIONS (struct nlattr layout, the same bytes
 * as tc's struct rtattr), stats from the payload of TCA_STATS_APP, and
 * printing goes through a struct aic_printer each front end fills in.
 *
 * Grammar, one for both front ends: whatever aic_print_opts() prints,
 * aic_parse_opt() accepts and turns into the same configuration.
 */
#ifndef AICLASS_LIB_H
#define AICLASS_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../../sch_aiclass.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* The last training class minor that can exist. */
#define AIC_TRAIN_MINOR_LAST \
	(AICLASS_TRAIN_MINOR_MIN + AICLASS_MAX_TRAIN_CLASSES - 1)

#define AIC_BIT(attr)	(1ULL << (attr))
#define AIC_OPTS_MAX_LEN	1024	/* bytes of an encoded TCA_OPTIONS */
#define AIC_STATS_MAX	32		/* stats attributes we index */

/* ---------------------------------------------------------------- units */

int aic_parse_count(const char *s, uint64_t *v);
int aic_parse_size(const char *s, uint64_t *bytes);	/* 1514, 64Kb, 2mb */
/* 500us, 10ms, 1s: whole microseconds (-EDOM for 10ns or 1.5us) */
int aic_parse_time(const char *s, uint64_t *usec);
int aic_parse_rate(const char *s, uint64_t *bytes_per_s); /* 100mbit */
int aic_parse_seconds(const char *s, double *sec);	/* 0.5, 500ms */
/* A class id as tc writes it, hex: "1:11", ":11" or "11"; *major is 0
 * when not given.  Any minor up to 0xffff; aic_minor_ok() says whether
 * aiclass has such a class.
 */
int aic_parse_classid(const char *s, uint32_t *major, uint32_t *minor);
bool aic_minor_ok(uint32_t minor);
int aic_parse_handle(const char *s, uint32_t *handle);	/* "1:" */

char *aic_fmt_size(char *buf, size_t len, uint64_t bytes);	/* exact */
char *aic_fmt_time(char *buf, size_t len, uint64_t usec);	/* exact */
char *aic_fmt_rate(char *buf, size_t len, uint64_t bytes_per_s); /* exact */
char *aic_fmt_ns(char *buf, size_t len, uint64_t ns);	/* approximate */
char *aic_fmt_rate_approx(char *buf, size_t len, double bytes_per_s);
char *aic_fmt_handle(char *buf, size_t len, uint32_t handle);

/* -------------------------------------------------------------- printing */

/*
 * Where the shared printers write: text() gets the human text, the other
 * callbacks the JSON (key NULL inside an array).  A front end prints one
 * or the other, or (tc) hands both to its own printer.
 */
struct aic_printer {
	void (*text)(void *ctx, const char *s);
	void (*u64)(void *ctx, const char *key, uint64_t v);
	void (*s64)(void *ctx, const char *key, int64_t v);
	void (*str)(void *ctx, const char *key, const char *v);
	void (*arr_open)(void *ctx, const char *key);
	void (*arr_close)(void *ctx);
	void *ctx;
};

/* --------------------------------------------------------------- options */

enum aic_unit {
	AIC_COUNT,	/* plain decimal number */
	AIC_BYTES,	/* tc sizes: 1514, 64Kb, 1Mb (k, m, g = 1024) */
	AIC_USECS,	/* tc times: 500us, 10ms, 1s (plain = us) */
	AIC_RATE,	/* tc rates: 100Mbit, 10Gbit (plain = bit/s) */
	AIC_PORT,	/* UDP port */
	AIC_CLASS,	/* a class: 1:11, :11 or 11 (hex minor) */
	AIC_FLAG,	/* keyword alone: on; its negation alone: off */
	AIC_WEIGHTS,	/* list of counts, from 1:11 up */
	AIC_THRESHOLDS,	/* list of sizes, strictly increasing */
	AIC_PRIOMAP,	/* up to 16 classes or auto */
	AIC_DSCPMAP,	/* DSCP:MINOR,... or auto */
	AIC_SLOS,	/* list of times or off, from 1:1 up */
};

struct aic_opt {
	const char *name;	/* keyword, and key in JSON */
	int attr;		/* TCA_AICLASS_* */
	enum aic_unit unit;
	unsigned int width;	/* bytes on the wire of a scalar or element */
	uint64_t min, max;	/* of a scalar or list element, when on */
	uint64_t def;		/* the module's default (0 also: off) */
	bool pow2;		/* a power of two */
	bool def_dynamic;	/* the default depends on the device */
	const char *off;	/* value word for 0 (off, unlimited), or NULL */
	const char *neg;	/* keyword alone meaning 0 (noroce, noecn) */
	const char *arg;	/* placeholder in usage text */
	const char *help;	/* one line */
};

extern const struct aic_opt aic_opts[];
extern const unsigned int aic_nopts;
const struct aic_opt *aic_opt_by_name(const char *word);	/* or neg */
const struct aic_opt *aic_opt_by_attr(int attr);

/* A qdisc configuration, or a set of changes to one. */
struct aic_config {
	uint64_t have;			/* AIC_BIT(TCA_AICLASS_*) present */
	uint64_t val[TCA_AICLASS_MAX + 1];
	uint32_t weights[AICLASS_MAX_TRAIN_CLASSES];
	unsigned int nweights;
	uint32_t thresholds[AICLASS_MAX_LAT_BANDS - 1];
	unsigned int nthresholds;
	uint8_t priomap[AICLASS_PRIOMAP_LEN];
	uint8_t dscpmap[AICLASS_DSCPMAP_LEN];
	uint32_t slos[AICLASS_MAX_LAT_BANDS];	/* us, 0 = off */
	unsigned int nslos;
	/* The qdisc major that class ids of priomap, dscpmap and
	 * default_class named (1 of "1:11"), 0 when all were minors alone;
	 * the first such id as written and its option, for messages.
	 */
	uint32_t major;
	char major_word[16];
	const char *major_opt;
};

/*
 * Parse one option at argv[0] (and its values) into *c.  *seen collects
 * the options given, so that one given twice is refused.  Returns the
 * number of words used; 0 when argv[0] is no option keyword; -1 with a
 * message in err ("Illegal \"burst\": ...", tc's words).
 */
int aic_parse_opt(struct aic_config *c, uint64_t *seen, int argc,
		  char **argv, char *err, size_t errlen);
/* Does word start an option, or end a list (help, weight)? */
bool aic_is_keyword(const char *word);
/* A class weight (tc class change ... weight W, aiclassctl weight C=W). */
int aic_parse_weight(const char *s, uint32_t *w, char *err, size_t errlen);
/* A band's SLO (tc class change ... slo TIME, aiclassctl slo C=TIME): us,
 * 0 for off or 0.
 */
int aic_parse_slo(const char *s, uint32_t *us, char *err, size_t errlen);
/* Checks across the options of one request; 0, or -1 with err. */
int aic_check_config(const struct aic_config *c, char *err, size_t errlen);
/*
 * Class ids with a major must name the qdisc they configure: handle is
 * that qdisc's (major << 16), or 0 when the kernel will pick it (tc qdisc
 * add without handle), and then only minors alone are taken.  0, or -1
 * with err.
 */
int aic_check_major(const struct aic_config *c, uint32_t handle,
		    char *err, size_t errlen);

/* TCA_OPTIONS payload: encode the options present, decode what a dump
 * holds (unknown attributes and wrong sizes are skipped).
 */
int aic_encode_opts(const struct aic_config *c, void *buf, size_t len);
void aic_decode_opts(const void *payload, size_t len, struct aic_config *c);

/* "name value " for every option present, in tc qdisc add order. */
void aic_print_opts(const struct aic_config *c, const struct aic_printer *p);
/* The value alone, as printed (for messages and help). */
char *aic_fmt_value(char *buf, size_t len, const struct aic_opt *o,
		    uint64_t v);
/* Usage text of every option, two spaces in, for --help and explain(). */
void aic_usage_opts(FILE *f);

/* ----------------------------------------------------------------- stats */

struct aic_stats {
	uint64_t v[AIC_STATS_MAX];
	uint8_t width[AIC_STATS_MAX];	/* 0: not present */
};

/* TCA_STATS_APP payload: the qdisc or class nest found in it. */
void aic_decode_xstats(const void *payload, size_t len, struct aic_stats *q,
		       struct aic_stats *cl, bool *have_q, bool *have_cl);
/* The value of a stat as the tables read it (64-bit sojourn preferred). */
bool aic_cstat(const struct aic_stats *s, const char *key, int64_t *v);
void aic_print_qstats(const struct aic_stats *s, const struct aic_printer *p);
void aic_print_cstats(const struct aic_stats *s, const struct aic_printer *p);
const char *aic_kind_name(uint64_t kind);

/*
 * The stats as Prometheus metrics (aiclassctl metrics), names as
 * node_exporter's: the family after "aiclass_qdisc_" or "aiclass_class_"
 * (a counter's ends in _total; base units, _bytes, _seconds), the label
 * that tells this stat from the others of its family (route="auto",
 * reason="aqm") or NULL, the HELP text.  The stats of one family are
 * next to each other in the table.
 */
struct aic_metric {
	const char *name;	/* NULL: the stat has no metric (kind) */
	const char *label;
	const char *help;
};

/* The metric of the i-th qdisc (class) stat; NULL past the last. */
const struct aic_metric *aic_qmetric(unsigned int i);
const struct aic_metric *aic_cmetric(unsigned int i);
/* Its value as the exposition format writes it; false when not sent. */
bool aic_qmetric_value(const struct aic_stats *s, unsigned int i, char *buf,
		       size_t len);
bool aic_cmetric_value(const struct aic_stats *s, unsigned int i, char *buf,
		       size_t len);

/* ------------------------------------------------------------------ JSON */

#define AIC_JSON_DEPTH	16

struct aic_json {
	FILE *f;
	bool pretty;
	bool failed;			/* nesting overflow: output is bad */
	int depth;
	bool first[AIC_JSON_DEPTH];
};

void jw_init(struct aic_json *j, FILE *f, bool pretty);
void jw_obj_open(struct aic_json *j, const char *key);
void jw_obj_close(struct aic_json *j);
void jw_arr_open(struct aic_json *j, const char *key);
void jw_arr_close(struct aic_json *j);
void jw_str(struct aic_json *j, const char *key, const char *v);
void jw_u64(struct aic_json *j, const char *key, uint64_t v);
void jw_s64(struct aic_json *j, const char *key, int64_t v);
void jw_double(struct aic_json *j, const char *key, double v);
void jw_bool(struct aic_json *j, const char *key, bool v);
void jw_null(struct aic_json *j, const char *key);
int jw_end(struct aic_json *j);		/* -1 if the document is bad */
/* An aic_printer that writes JSON to j (text is dropped). */
void jw_printer(struct aic_json *j, struct aic_printer *p);

#endif /* AICLASS_LIB_H */
