// SPDX-License-Identifier: GPL-2.0
/*
 * show.c	aiclassctl show (text or one JSON document) and watch (a live
 *		view redrawn in place with ANSI escapes).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/pkt_sched.h>

#include "aiclassctl.h"

/* Names of the qdisc stats, in the order printed; also the JSON keys. */
static const struct {
	int attr;
	const char *name;
} qstat_names[] = {
	{ TCA_AICLASS_STATS_CLS_PRIORITY,	"cls_priority" },
	{ TCA_AICLASS_STATS_CLS_FILTER,		"cls_filter" },
	{ TCA_AICLASS_STATS_CLS_PRIOMAP,	"cls_priomap" },
	{ TCA_AICLASS_STATS_CLS_ROCE,		"cls_roce" },
	{ TCA_AICLASS_STATS_CLS_AUTO,		"cls_auto" },
	{ TCA_AICLASS_STATS_DEMOTIONS,		"demotions" },
	{ TCA_AICLASS_STATS_IDLE_RESETS,	"idle_resets" },
	{ TCA_AICLASS_STATS_GUARD_YIELDS,	"guard_yields" },
	{ TCA_AICLASS_STATS_CE_MARKS,		"ce_marks" },
	{ TCA_AICLASS_STATS_DROP_OVERLIMIT,	"drop_overlimit" },
	{ TCA_AICLASS_STATS_DROP_MEMORY,	"drop_memory" },
	{ TCA_AICLASS_STATS_DROP_FILTER,	"drop_filter" },
	{ TCA_AICLASS_STATS_DROP_BAND,		"drop_band" },
	{ TCA_AICLASS_STATS_STOLEN,		"stolen" },
	{ TCA_AICLASS_STATS_ACTIVE_FLOWS,	"active_flows" },
	{ TCA_AICLASS_STATS_MEMORY_USED,	"memory_used" },
	{ TCA_AICLASS_STATS_THROTTLED,		"throttled" },
	{ TCA_AICLASS_STATS_FLOWS_MOVED,	"flows_moved" },
	{ TCA_AICLASS_STATS_FLOWS_SHARED,	"flows_shared" },
};

static const char *class_kind(const struct ac_class *cl)
{
	if (cl->have & AC_BIT(TCA_AICLASS_CSTATS_KIND))
		return cl->cs[TCA_AICLASS_CSTATS_KIND] == AICLASS_KIND_TRAINING ?
		       "training" : "latency";
	return (cl->classid & 0xffff) <= AICLASS_LAT_MINOR_MAX ?
	       "latency" : "training";
}

static char *fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
	return buf;
}

static char *fmt_minor(char *buf, size_t len, const struct ac_instance *in,
		       uint64_t minor)
{
	if (minor == AICLASS_PRIOMAP_AUTO)
		snprintf(buf, len, "auto");
	else
		snprintf(buf, len, "%x:%llx", in->handle >> 16,
			 (unsigned long long)minor);
	return buf;
}

/* ------------------------------------------------------------------ */
/* Text */

static void print_options(FILE *f, const struct ac_instance *in)
{
	const struct ac_config *c = &in->cfg;
	int i, k, col = 0;
	char v[64];

	for (i = 0; i < ac_nopts; i++) {
		const struct ac_opt *o = &ac_opts[i];
		bool all_auto = true;

		if (!(c->have & AC_BIT(o->attr)))
			continue;
		if (col == 0)
			fputc(' ', f);
		col += fprintf(f, " %s", o->name);
		switch (o->unit) {
		case AC_WEIGHTS:
			for (k = 0; k < c->nweights; k++)
				col += fprintf(f, " %u", c->weights[k]);
			break;
		case AC_THRESHOLDS:
			for (k = 0; k < c->nthresholds; k++)
				col += fprintf(f, " %s", ac_fmt_size(v,
					       sizeof(v), c->thresholds[k]));
			break;
		case AC_PRIOMAP:
			for (k = 0; k < AICLASS_PRIOMAP_LEN; k++)
				if (c->priomap[k] != AICLASS_PRIOMAP_AUTO)
					all_auto = false;
			if (all_auto) {
				col += fprintf(f, " auto");
				break;
			}
			for (k = 0; k < AICLASS_PRIOMAP_LEN; k++)
				col += fprintf(f, " %s", fmt_minor(v, sizeof(v),
					       in, c->priomap[k]));
			break;
		case AC_CLASS:
			col += fprintf(f, " %s", fmt_minor(v, sizeof(v), in,
				       c->val[o->attr]));
			break;
		default:
			col += fprintf(f, " %s", ac_fmt_value(v, sizeof(v), o,
				       c->val[o->attr]));
			break;
		}
		if (col > 60) {
			fputc('\n', f);
			col = 0;
		}
	}
	if (col)
		fputc('\n', f);
}

static void print_rate(FILE *f, double rb, double rp)
{
	char r[32];

	if (rb < 0)
		fprintf(f, "%10s %8s", "-", "-");
	else
		fprintf(f, "%10s %6.0fpps", ac_fmt_rate(r, sizeof(r), rb), rp);
}

static void print_xstats(FILE *f, const struct ac_instance *in)
{
	size_t i;
	int col = 0;

	for (i = 0; i < ARRAY_SIZE(qstat_names); i++) {
		int a = qstat_names[i].attr;

		if (!(in->have & AC_BIT(a)))
			continue;
		if (col == 0)
			fputc(' ', f);
		col += fprintf(f, " %s %llu", qstat_names[i].name,
			       (unsigned long long)in->st[a]);
		if (col > 60) {
			fputc('\n', f);
			col = 0;
		}
	}
	if (col)
		fputc('\n', f);
}

static void print_class_table(FILE *f, const struct ac_instance *in)
{
	char a[24], m[24], w[16], fl[16], bl[24];
	int i;

	fprintf(f, "  %-6s %-8s %6s %10s %12s %6s %8s %5s %17s %10s %9s\n",
		"class", "kind", "weight", "packets", "bytes", "drops",
		"backlog", "flows", "sojourn avg/max", "rate", "");
	for (i = 0; i < in->ncls; i++) {
		const struct ac_class *cl = &in->cls[i];
		char name[16];

		snprintf(name, sizeof(name), "%x:%x", cl->classid >> 16,
			 cl->classid & 0xffff);
		if (cl->have & AC_BIT(TCA_AICLASS_CSTATS_WEIGHT) &&
		    !strcmp(class_kind(cl), "training"))
			snprintf(w, sizeof(w), "%llu", (unsigned long long)
				 cl->cs[TCA_AICLASS_CSTATS_WEIGHT]);
		else
			snprintf(w, sizeof(w), "-");
		if (cl->have & AC_BIT(TCA_AICLASS_CSTATS_SOJOURN_AVG))
			fmt_ns(a, sizeof(a),
			       cl->cs[TCA_AICLASS_CSTATS_SOJOURN_AVG]);
		else
			snprintf(a, sizeof(a), "-");
		if (cl->have & AC_BIT(TCA_AICLASS_CSTATS_SOJOURN_MAX))
			fmt_ns(m, sizeof(m),
			       cl->cs[TCA_AICLASS_CSTATS_SOJOURN_MAX]);
		else
			snprintf(m, sizeof(m), "-");
		if (cl->have & AC_BIT(TCA_AICLASS_CSTATS_ACTIVE_FLOWS))
			snprintf(fl, sizeof(fl), "%llu", (unsigned long long)
				 cl->cs[TCA_AICLASS_CSTATS_ACTIVE_FLOWS]);
		else
			snprintf(fl, sizeof(fl), "-");
		fprintf(f, "  %-6s %-8s %6s %10llu %12llu %6u %8s %5s %8s/%-8s ",
			name, class_kind(cl), w,
			(unsigned long long)cl->b.packets,
			(unsigned long long)cl->b.bytes, cl->b.drops,
			ac_fmt_size(bl, sizeof(bl), cl->b.backlog),
			fl, a, m);
		print_rate(f, cl->rate_bytes, cl->rate_pkts);
		fputc('\n', f);
	}
}

static void print_instance(FILE *f, const struct ac_instance *in)
{
	char h[16], p[16], bl[24];

	fprintf(f, "aiclass %s dev %s %s%s\n", ac_fmt_handle(h, sizeof(h),
		in->handle), in->dev, in->parent == TC_H_ROOT ? "" : "parent ",
		ac_fmt_handle(p, sizeof(p), in->parent));
	print_options(f, in);
	fprintf(f, "  Sent %llu bytes %llu pkt (dropped %u, overlimits %u "
		"requeues %u) backlog %s %up\n",
		(unsigned long long)in->b.bytes,
		(unsigned long long)in->b.packets, in->b.drops,
		in->b.overlimits, in->b.requeues,
		ac_fmt_size(bl, sizeof(bl), in->b.backlog), in->b.qlen);
	if (in->rate_bytes >= 0) {
		fprintf(f, "  rate");
		print_rate(f, in->rate_bytes, in->rate_pkts);
		fputc('\n', f);
	}
	print_xstats(f, in);
	fputc('\n', f);
	print_class_table(f, in);
}

/* ------------------------------------------------------------------ */
/* JSON: one document, every key always present (null when unknown). */

static void json_rate(struct ac_json *j, double rb, double rp)
{
	if (rb < 0) {
		jw_null(j, "rate_bytes");
		jw_null(j, "rate_packets");
	} else {
		jw_double(j, "rate_bytes", rb);
		jw_double(j, "rate_packets", rp);
	}
}

static void json_options(struct ac_json *j, const struct ac_instance *in)
{
	const struct ac_config *c = &in->cfg;
	int i, k;

	jw_obj_open(j, "options");
	for (i = 0; i < ac_nopts; i++) {
		const struct ac_opt *o = &ac_opts[i];

		if (!(c->have & AC_BIT(o->attr))) {
			jw_null(j, o->name);
			continue;
		}
		switch (o->unit) {
		case AC_WEIGHTS:
			jw_arr_open(j, o->name);
			for (k = 0; k < c->nweights; k++)
				jw_u64(j, NULL, c->weights[k]);
			jw_arr_close(j);
			break;
		case AC_THRESHOLDS:
			jw_arr_open(j, o->name);
			for (k = 0; k < c->nthresholds; k++)
				jw_u64(j, NULL, c->thresholds[k]);
			jw_arr_close(j);
			break;
		case AC_PRIOMAP:
			/* class minors as numbers, 0 = auto (as tc -j) */
			jw_arr_open(j, o->name);
			for (k = 0; k < AICLASS_PRIOMAP_LEN; k++)
				jw_u64(j, NULL, c->priomap[k]);
			jw_arr_close(j);
			break;
		default:
			jw_u64(j, o->name, c->val[o->attr]);
			break;
		}
	}
	jw_obj_close(j);
}

static void json_basic(struct ac_json *j, const struct ac_basic *b)
{
	jw_u64(j, "bytes", b->bytes);
	jw_u64(j, "packets", b->packets);
	jw_u64(j, "drops", b->drops);
	jw_u64(j, "overlimits", b->overlimits);
	jw_u64(j, "requeues", b->requeues);
	jw_u64(j, "backlog", b->backlog);
	jw_u64(j, "qlen", b->qlen);
}

static void json_cstat(struct ac_json *j, const struct ac_class *cl,
		       const char *key, int attr, bool is_signed)
{
	if (!(cl->have & AC_BIT(attr)))
		jw_null(j, key);
	else if (is_signed)
		jw_s64(j, key, (int32_t)cl->cs[attr]);
	else
		jw_u64(j, key, cl->cs[attr]);
}

static void json_instance(struct ac_json *j, const struct ac_instance *in)
{
	char h[16];
	size_t i;
	int k;

	jw_obj_open(j, NULL);
	jw_str(j, "dev", in->dev);
	jw_u64(j, "ifindex", in->ifindex);
	jw_str(j, "handle", ac_fmt_handle(h, sizeof(h), in->handle));
	jw_str(j, "parent", ac_fmt_handle(h, sizeof(h), in->parent));
	json_options(j, in);

	jw_obj_open(j, "stats");
	json_basic(j, &in->b);
	json_rate(j, in->rate_bytes, in->rate_pkts);
	for (i = 0; i < ARRAY_SIZE(qstat_names); i++) {
		int a = qstat_names[i].attr;

		if (in->have & AC_BIT(a))
			jw_u64(j, qstat_names[i].name, in->st[a]);
		else
			jw_null(j, qstat_names[i].name);
	}
	jw_obj_close(j);

	jw_arr_open(j, "classes");
	for (k = 0; k < in->ncls; k++) {
		const struct ac_class *cl = &in->cls[k];
		bool training = !strcmp(class_kind(cl), "training");

		jw_obj_open(j, NULL);
		snprintf(h, sizeof(h), "%x:%x", cl->classid >> 16,
			 cl->classid & 0xffff);
		jw_str(j, "class", h);
		jw_str(j, "kind", class_kind(cl));
		if (training)
			json_cstat(j, cl, "weight", TCA_AICLASS_CSTATS_WEIGHT,
				   false);
		else
			jw_null(j, "weight");
		json_cstat(j, cl, "deficit", TCA_AICLASS_CSTATS_DEFICIT, true);
		json_basic(j, &cl->b);
		json_cstat(j, cl, "active_flows",
			   TCA_AICLASS_CSTATS_ACTIVE_FLOWS, false);
		json_cstat(j, cl, "sojourn_avg_ns",
			   TCA_AICLASS_CSTATS_SOJOURN_AVG, false);
		json_cstat(j, cl, "sojourn_max_ns",
			   TCA_AICLASS_CSTATS_SOJOURN_MAX, false);
		json_cstat(j, cl, "ce_marks", TCA_AICLASS_CSTATS_CE_MARKS,
			   false);
		json_rate(j, cl->rate_bytes, cl->rate_pkts);
		jw_obj_close(j);
	}
	jw_arr_close(j);
	jw_obj_close(j);
}

/* ------------------------------------------------------------------ */
/* Commands */

struct view_args {
	const char *dev;
	uint32_t handle;
	bool json;
	double interval;
	long count;
};

static int parse_view_args(const char *cmd, int argc, char **argv,
			   struct view_args *va)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "dev") && i + 1 < argc && !va->dev) {
			va->dev = argv[++i];
		} else if (!strcmp(a, "handle") && i + 1 < argc) {
			if (ac_parse_handle(argv[++i], &va->handle)) {
				ac_err("%s: invalid handle \"%s\" (expected "
				       "such as 1:)", cmd, argv[i]);
				return EXIT_USAGE;
			}
		} else if (!strcmp(a, "--json") || !strcmp(a, "-j")) {
			va->json = true;
		} else if ((!strcmp(a, "--interval") || !strcmp(a, "-i")) &&
			   i + 1 < argc) {
			if (ac_parse_interval(argv[++i], &va->interval) ||
			    va->interval > 3600) {
				ac_err("%s: invalid interval \"%s\" (seconds, "
				       "such as 1 or 0.5)", cmd, argv[i]);
				return EXIT_USAGE;
			}
		} else if ((!strcmp(a, "--count") || !strcmp(a, "-n")) &&
			   i + 1 < argc) {
			uint64_t n;

			if (ac_parse_u64(argv[++i], &n) || !n || n > 1000000) {
				ac_err("%s: invalid count \"%s\"", cmd,
				       argv[i]);
				return EXIT_USAGE;
			}
			va->count = n;
		} else {
			ac_err("%s: unexpected \"%s\" (see aiclassctl --help)",
			       cmd, a);
			return EXIT_USAGE;
		}
	}
	return 0;
}

static int resolve(struct nl_sock *sk, const struct view_args *va)
{
	int ifindex = 0;

	if (va->dev) {
		ifindex = ac_dev_index(sk, va->dev);
		if (ifindex < 0)
			return ifindex;
	}
	return ifindex;
}

static void filter_handle(struct ac_state *st, uint32_t handle)
{
	int i, n = 0;

	if (!handle)
		return;
	for (i = 0; i < st->ninst; i++)
		if (st->inst[i].handle == handle)
			st->inst[n++] = st->inst[i];
	st->ninst = n;
}

static int no_aiclass(const struct view_args *va)
{
	if (va->handle)
		ac_err("device \"%s\" has no aiclass qdisc with handle %x:",
		       va->dev, va->handle >> 16);
	else
		ac_err("device \"%s\" has no aiclass qdisc", va->dev);
	return EXIT_NODEV;
}

/*
 * The first sample of show and watch: the ifindex of va's device (0: all
 * devices) in *ifindex, the instances va selects in *st.  Returns 0, or an
 * exit code after saying why (no such device; a device named but no
 * aiclass instance selected on it).
 */
static int first_sample(struct nl_sock *sk, const struct view_args *va,
			int *ifindex, struct ac_state *st)
{
	int err;

	*ifindex = resolve(sk, va);
	if (*ifindex < 0)
		return -*ifindex;
	err = ac_read_state(sk, *ifindex, st);
	if (err)
		return err;
	filter_handle(st, va->handle);
	if (va->dev && !st->ninst) {
		ac_free_state(st);
		return no_aiclass(va);
	}
	return 0;
}

static void sleep_for(double sec)
{
	struct timespec ts;

	ts.tv_sec = (time_t)sec;
	ts.tv_nsec = (long)((sec - ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);		/* a signal cuts it short */
}

int cmd_show(struct nl_sock *sk, int argc, char **argv)
{
	struct view_args va = { .interval = 0.2 };
	struct ac_state prev = { 0 }, st = { 0 };
	int ifindex, err, i;

	err = parse_view_args("show", argc, argv, &va);
	if (err)
		return err;
	if (va.count) {
		ac_err("show: --count is for watch");
		return EXIT_USAGE;
	}
	err = first_sample(sk, &va, &ifindex, &st);
	if (err)
		return err;
	if (va.interval > 0 && st.ninst) {
		/* a second sample, for rates over the interval */
		prev = st;
		sleep_for(va.interval);
		err = ac_read_state(sk, ifindex, &st);
		if (err) {
			ac_free_state(&prev);
			return err;
		}
		filter_handle(&st, va.handle);
		ac_compute_rates(&st, &prev);
		ac_free_state(&prev);
	}

	if (va.json) {
		struct ac_json j;

		jw_init(&j, stdout);
		jw_obj_open(&j, NULL);
		jw_str(&j, "version", AICLASSCTL_VERSION);
		if (va.interval > 0)
			jw_double(&j, "interval", va.interval);
		else
			jw_null(&j, "interval");
		jw_arr_open(&j, "instances");
		for (i = 0; i < st.ninst; i++)
			json_instance(&j, &st.inst[i]);
		jw_arr_close(&j);
		jw_obj_close(&j);
		jw_end(&j);
	} else if (!st.ninst) {
		printf("no aiclass qdisc on any device\n");
	} else {
		for (i = 0; i < st.ninst; i++) {
			if (i)
				putchar('\n');
			print_instance(stdout, &st.inst[i]);
		}
		if (va.interval > 0)
			printf("\n(rates over %.2fs)\n", va.interval);
	}
	ac_free_state(&st);
	return fflush(stdout) ? EXIT_SYS : EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* watch */

static volatile sig_atomic_t stop_watch;

static void on_signal(int sig)
{
	(void)sig;
	stop_watch = 1;
}

static void watch_frame(FILE *f, const struct view_args *va,
			const struct ac_state *st, int status, long frame)
{
	char stamp[32];
	time_t now = time(NULL);
	int i;

	strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
	fprintf(f, "aiclassctl watch %s%s  every %.1fs  %s  (Ctrl-C quits)\n\n",
		va->dev ? "dev " : "", va->dev ? va->dev : "all devices",
		va->interval, stamp);
	if (status) {
		fprintf(f, "  cannot read the qdisc (see above); retrying\n");
		return;
	}
	if (!st->ninst) {
		fprintf(f, "  no aiclass qdisc%s%s\n", va->dev ? " on " : "",
			va->dev ? va->dev : "");
		return;
	}
	for (i = 0; i < st->ninst; i++) {
		if (i)
			fputc('\n', f);
		print_instance(f, &st->inst[i]);
	}
	if (frame == 0)
		fprintf(f, "\n(rates from the next refresh on)\n");
}

/* Write a frame in place: home, each line then clear-to-EOL, clear below. */
static void draw(bool tty, const char *buf, size_t len)
{
	size_t i;

	if (!tty) {
		fwrite(buf, 1, len, stdout);
		fputc('\n', stdout);
		fflush(stdout);
		return;
	}
	fputs("\033[H", stdout);
	for (i = 0; i < len; i++) {
		if (buf[i] == '\n')
			fputs("\033[K", stdout);
		fputc(buf[i], stdout);
	}
	fputs("\033[J", stdout);
	fflush(stdout);
}

int cmd_watch(struct nl_sock *sk, int argc, char **argv)
{
	struct view_args va = { .interval = 1.0 };
	struct ac_state prev = { 0 }, st = { 0 };
	struct sigaction sa;
	bool tty = isatty(STDOUT_FILENO);
	int ifindex, err;
	long frame;

	err = parse_view_args("watch", argc, argv, &va);
	if (err)
		return err;
	if (va.json) {
		ac_err("watch: --json is for show");
		return EXIT_USAGE;
	}
	if (va.interval < 0.1)
		va.interval = 0.1;
	err = first_sample(sk, &va, &ifindex, &st);
	if (err)
		return err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: wake the sleep */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (tty)
		fputs("\033[?1049h\033[?25l\033[H\033[2J", stdout);

	for (frame = 0; !stop_watch; frame++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f;

		if (frame) {
			prev = st;
			err = ac_read_state(sk, ifindex, &st);
			if (!err) {
				filter_handle(&st, va.handle);
				ac_compute_rates(&st, &prev);
			}
			ac_free_state(&prev);
		}
		f = open_memstream(&buf, &len);
		if (!f) {
			err = EXIT_SYS;
			break;
		}
		watch_frame(f, &va, &st, err, frame);
		fclose(f);
		draw(tty, buf, len);
		free(buf);
		if (va.count && frame + 1 >= va.count)
			break;
		if (!stop_watch)
			sleep_for(va.interval);
	}

	if (tty)
		fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
	ac_free_state(&st);
	return EXIT_OK;
}
