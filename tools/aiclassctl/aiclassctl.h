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

#include "../lib/aiclass/aiclass.h"

#ifndef AICLASSCTL_VERSION
#define AICLASSCTL_VERSION "0.1"
#endif

/* Exit codes, documented in aiclassctl(8). */
enum {
	EXIT_OK		= 0,
	EXIT_USAGE	= 1,	/* bad command line, file or value */
	EXIT_KERNEL	= 2,	/* the kernel refused a change */
	EXIT_NODEV	= 3,	/* no such device, no aiclass, no such class */
	EXIT_PERM	= 4,	/* not permitted (needs CAP_NET_ADMIN) */
	EXIT_SYS	= 5,	/* netlink or system error */
};

/* A change request: qdisc options plus per-class weights and SLOs. */
struct ac_class_weight {
	uint32_t major;			/* 0 = any instance's handle */
	uint8_t minor;
	uint32_t weight;
};

struct ac_class_slo {
	uint32_t major;			/* 0 = any instance's handle */
	uint8_t minor;
	uint32_t slo;			/* us, 0 = off */
};

struct ac_change {
	struct aic_config opts;
	struct ac_class_weight cw[AICLASS_MAX_CLASSES];
	int ncw;
	struct ac_class_slo cslo[AICLASS_MAX_CLASSES];
	int ncslo;
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
	struct aic_stats cs;		/* TCA_AICLASS_CSTATS_*, and the
					 * class options kind, weight, slo
					 */
	/* rates since the previous sample, < 0 when not measured */
	double rate_bytes, rate_pkts;
};

struct ac_instance {
	int ifindex;
	char dev[IF_NAMESIZE];
	uint32_t handle, parent;
	struct aic_config cfg;
	struct ac_basic b;
	struct aic_stats st;		/* TCA_AICLASS_STATS_* */
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
		       const struct aic_config *c, bool create,
		       struct ac_nlerr *e);
int ac_send_class_weight(struct nl_sock *sk, const struct ac_instance *in,
			 uint8_t minor, uint32_t weight, struct ac_nlerr *e);
int ac_send_class_slo(struct nl_sock *sk, const struct ac_instance *in,
		      uint8_t minor, uint32_t slo, struct ac_nlerr *e);
int ac_report_nlerr(const char *what, const struct ac_nlerr *e);
double ac_now(void);

/* ------------------------------------------------------------------ */
/* show.c: show, watch and metrics */

int cmd_show(struct nl_sock *sk, int argc, char **argv);
/* An aic_printer that writes the text to f (and no JSON). */
void ac_text_printer(FILE *f, struct aic_printer *p);
int cmd_watch(struct nl_sock *sk, int argc, char **argv);
int cmd_metrics(struct nl_sock *sk, int argc, char **argv);

/* set.c: set, apply, profile */

int cmd_set(struct nl_sock *sk, int argc, char **argv);
int cmd_apply(struct nl_sock *sk, int argc, char **argv);
int cmd_profile(struct nl_sock *sk, int argc, char **argv);

/* set.c: the presets */
struct ac_profile {
	const char *name;
	const char *summary;
	const char *text;	/* a configuration file */
};

extern const struct ac_profile ac_profiles[];
extern const unsigned int ac_nprofiles;
const struct ac_profile *ac_profile_by_name(const char *name);

/* aiclassctl.c: global options, help, errors */
extern const char *progname;
extern bool ac_json;		/* -j, --json */
extern bool ac_pretty;		/* -p, --pretty */
/* "help" or "-h"/"--help" as argv[0] of a command: print its help to
 * stdout and return true.
 */
bool ac_help_asked(const char *cmd, int argc, char **argv);
void ac_usage_cmd(FILE *f, const char *cmd);
void ac_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* AICLASSCTL_H */
