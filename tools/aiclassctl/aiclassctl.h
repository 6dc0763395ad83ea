/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aiclassctl.h	shared declarations of aiclassctl, the tool that shows,
 *		watches and tunes live aiclass qdiscs over rtnetlink.
 */
#ifndef AICLASSCTL_H
#define AICLASSCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <net/if.h>

#include "../../sch_aiclass.h"

#ifndef AICLASSCTL_VERSION
#define AICLASSCTL_VERSION "0.1"
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Exit codes, documented in aiclassctl(8). */
enum {
	EXIT_OK		= 0,
	EXIT_USAGE	= 1,	/* bad command line, file or value */
	EXIT_KERNEL	= 2,	/* the kernel refused a change */
	EXIT_NODEV	= 3,	/* no such device, no aiclass, no such class */
	EXIT_PERM	= 4,	/* not permitted (needs CAP_NET_ADMIN) */
	EXIT_SYS	= 5,	/* netlink or system error */
};

/* ------------------------------------------------------------------ */
/* Options: one table drives parsing, printing and the netlink request. */

enum ac_unit {
	AC_COUNT,	/* plain number */
	AC_PACKETS,	/* plain number, printed with a "p" */
	AC_SIZE,	/* bytes; tc size units (64kb) */
	AC_TIME,	/* microseconds; tc time units (10ms); 0 = off if off_ok */
	AC_RATE,	/* bytes/s; tc rate units (100mbit); 0 = off */
	AC_PERCENT,	/* 0..100, an optional "%" */
	AC_PORT,	/* UDP port; 0 = off */
	AC_CLASS,	/* a class minor (1:11, 11) */
	AC_WEIGHTS,	/* list of weights, from 1:11 up */
	AC_THRESHOLDS,	/* list of sizes, one per band boundary */
	AC_PRIOMAP,	/* 16 class minors or "auto" */
};

struct ac_opt {
	const char *name;	/* keyword on the command line and in JSON */
	int attr;		/* TCA_AICLASS_* */
	int width;		/* bytes on the wire: 1, 2, 4, 8; 0 = list */
	enum ac_unit unit;
	bool off_ok;		/* 0 may be written "off" */
};

extern const struct ac_opt ac_opts[];
extern const int ac_nopts;
const struct ac_opt *ac_opt_by_name(const char *name);
const struct ac_opt *ac_opt_by_attr(int attr);

/* A qdisc configuration, or a set of changes to one. */
struct ac_config {
	uint64_t have;			/* bit per TCA_AICLASS_* present */
	uint64_t val[TCA_AICLASS_MAX + 1];
	uint32_t weights[AICLASS_MAX_TRAIN_CLASSES];
	int nweights;
	uint32_t thresholds[AICLASS_MAX_LAT_BANDS];
	int nthresholds;
	uint8_t priomap[AICLASS_PRIOMAP_LEN];
};

#define AC_BIT(attr)	(1ULL << (attr))

/* A change request: qdisc options plus per-class weights. */
struct ac_class_weight {
	uint32_t major;			/* 0 = any instance's handle */
	uint8_t minor;
	uint32_t weight;
};

struct ac_change {
	struct ac_config opts;
	struct ac_class_weight cw[AICLASS_MAX_CLASSES];
	int ncw;
};

/* ------------------------------------------------------------------ */
/* Live state read from the kernel. */

struct ac_basic {
	uint64_t bytes, packets;
	uint32_t qlen, backlog, drops, requeues, overlimits;
	bool have_basic, have_queue;
};

struct ac_class {
	uint32_t classid;
	struct ac_basic b;
	uint64_t have;			/* bit per TCA_AICLASS_CSTATS_* */
	uint64_t cs[TCA_AICLASS_CSTATS_MAX + 1];
	/* rates since the previous sample, < 0 when not measured */
	double rate_bytes, rate_pkts;
};

struct ac_instance {
	int ifindex;
	char dev[IF_NAMESIZE];
	uint32_t handle, parent;
	struct ac_config cfg;
	struct ac_basic b;
	uint64_t have;			/* bit per TCA_AICLASS_STATS_* */
	uint64_t st[TCA_AICLASS_STATS_MAX + 1];
	struct ac_class cls[AICLASS_MAX_CLASSES];
	int ncls;
	double rate_bytes, rate_pkts;
};

struct ac_state {
	struct ac_instance *inst;
	int ninst;
	double when;			/* CLOCK_MONOTONIC seconds */
};

/* ------------------------------------------------------------------ */
/* nl.c: talking to the kernel */

struct nl_sock;

/* Error context of the last request: errno and the kernel's extack. */
struct ac_nlerr {
	int err;			/* kernel's errno (positive), 0 = none */
	int nlerr;			/* libnl error (positive) if local */
	char msg[256];			/* NLMSGERR_ATTR_MSG, or "" */
	int msgtype;			/* RTM_* of the refused request */
	int bad_attr;			/* TCA_OPTIONS member it blamed, or 0 */
};

int ac_nl_open(struct nl_sock **skp);
void ac_nl_close(struct nl_sock *sk);
int ac_dev_index(struct nl_sock *sk, const char *dev);
int ac_read_state(struct nl_sock *sk, int ifindex, struct ac_state *st);
void ac_free_state(struct ac_state *st);
void ac_compute_rates(struct ac_state *now, const struct ac_state *prev);
int ac_send_qdisc_opts(struct nl_sock *sk, const struct ac_instance *in,
		       const struct ac_config *c, bool create,
		       struct ac_nlerr *e);
int ac_send_class_weight(struct nl_sock *sk, const struct ac_instance *in,
			 uint8_t minor, uint32_t weight, struct ac_nlerr *e);
int ac_report_nlerr(const char *what, const struct ac_nlerr *e);
double ac_now(void);

/* ------------------------------------------------------------------ */
/* units.c: tc-style values */

int ac_parse_u64(const char *s, uint64_t *v);
int ac_parse_size(const char *s, uint64_t *bytes);
int ac_parse_time(const char *s, uint64_t *usec);
int ac_parse_rate(const char *s, uint64_t *bytes_per_s);
int ac_parse_percent(const char *s, uint64_t *pct);
int ac_parse_minor(const char *s, uint8_t *minor, uint32_t *major);
int ac_parse_interval(const char *s, double *sec);
int ac_parse_handle(const char *s, uint32_t *h);
char *ac_fmt_size(char *buf, size_t len, uint64_t bytes);
char *ac_fmt_time(char *buf, size_t len, uint64_t usec);
char *ac_fmt_rate(char *buf, size_t len, double bytes_per_s);
char *ac_fmt_handle(char *buf, size_t len, uint32_t h);
char *ac_fmt_value(char *buf, size_t len, const struct ac_opt *o,
		   uint64_t v);

/* ------------------------------------------------------------------ */
/* json.c: a small streaming JSON writer */

struct ac_json {
	FILE *f;
	int depth;
	bool first[32];
	bool key_pending;
};

void jw_init(struct ac_json *j, FILE *f);
void jw_obj_open(struct ac_json *j, const char *key);
void jw_obj_close(struct ac_json *j);
void jw_arr_open(struct ac_json *j, const char *key);
void jw_arr_close(struct ac_json *j);
void jw_str(struct ac_json *j, const char *key, const char *v);
void jw_u64(struct ac_json *j, const char *key, uint64_t v);
void jw_s64(struct ac_json *j, const char *key, int64_t v);
void jw_double(struct ac_json *j, const char *key, double v);
void jw_bool(struct ac_json *j, const char *key, bool v);
void jw_null(struct ac_json *j, const char *key);
void jw_end(struct ac_json *j);

/* ------------------------------------------------------------------ */
/* show.c: show and watch */

int cmd_show(struct nl_sock *sk, int argc, char **argv);
int cmd_watch(struct nl_sock *sk, int argc, char **argv);

/* set.c: set, apply, profile */

int cmd_set(struct nl_sock *sk, int argc, char **argv);
int cmd_apply(struct nl_sock *sk, int argc, char **argv);
int cmd_profile(struct nl_sock *sk, int argc, char **argv);

/* aiclassctl.c */
extern const char *progname;
void ac_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* AICLASSCTL_H */
