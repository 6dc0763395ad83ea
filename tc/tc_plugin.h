/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tc_plugin.h	The part of the tc (iproute2) plugin interface that
 *		q_aiclass.so uses, declared here because Debian ships no
 *		iproute2 development headers.
 *
 * A qdisc plugin is a shared object q_KIND.so in $TC_LIB_DIR (default
 * /usr/lib/x86_64-linux-gnu/tc on Debian).  tc dlopen()s it with RTLD_LAZY
 * and looks up the data symbol KIND_qdisc_util, a struct qdisc_util that
 * tc links into its own list through ->next (so it must be writable).
 * Every function below is exported by the tc binary itself (nm -D tc).
 *
 * Checked against the binaries of iproute2 6.1.0 (bookworm) and 6.15.0
 * (bookworm-backports): sizeof(struct qdisc_util) is 64 in both, the
 * enum values below are the ones their code tests, and every symbol
 * used by the plugin is exported by both.  6.15 declares the callbacks
 * with a const struct qdisc_util *, which does not change the ABI.
 *
 * Keep this file small: add a declaration only when the plugin needs it,
 * and only with a signature that is the same in every supported tc.
 */
#ifndef _AICLASS_TC_PLUGIN_H
#define _AICLASS_TC_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

struct qdisc_util {
	struct qdisc_util *next;
	const char *id;
	int (*parse_qopt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_qopt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*print_xstats)(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats);
	int (*parse_copt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_copt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*has_block)(struct qdisc_util *qu, struct rtattr *opt,
			 __u32 block_idx, bool *p_has);
};

/* include/json_print.h */
enum output_type {
	PRINT_FP = 1,		/* text only */
	PRINT_JSON = 2,		/* JSON only */
	PRINT_ANY = 4,		/* whichever tc was asked for */
};

/* include/color.h: only the value meaning "no colour" */
#define TC_COLOR_NONE	6

/* lib/json_print.c; the int return values differ between versions and
 * are not used, so they are declared void here.
 */
void print_color_u64(enum output_type t, int color, const char *key,
		     const char *fmt, uint64_t value);
void print_color_int(enum output_type t, int color, const char *key,
		     const char *fmt, int value);
void print_color_string(enum output_type t, int color, const char *key,
			const char *fmt, const char *value);
bool is_json_context(void);
void open_json_object(const char *str);
void close_json_object(void);
void open_json_array(enum output_type type, const char *delim);
void close_json_array(enum output_type type, const char *delim);

/* lib/libnetlink.c */
int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data,
	      int alen);
struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type);
int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest);

#endif /* _AICLASS_TC_PLUGIN_H */
