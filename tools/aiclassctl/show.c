// SPDX-License-Identifier: GPL-2.0
/*
 * show.c	aiclassctl show (text or one JSON document), watch (a live
 *		view redrawn in place with ANSI escapes) and metrics (the
 *		Prometheus text exposition format).
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

static const char *class_kind(const struct ac_class *cl)
{
	int64_t k;

	if (aic_cstat(&cl->cs, "kind", &k))
		return aic_kind_name(k);
	return (cl->classid & 0xffff) <= AICLASS_LAT_MINOR_MAX ?
	       "latency" : "training";
}

/* ------------------------------------------------------------------ */
/* Text */

static void text_out(void *ctx, const char *s)
{
	fputs(s, ctx);
}

static void no_u64(void *ctx, const char *key, uint64_t v)
{
	(void)ctx, (void)key, (void)v;
}

static void no_s64(void *ctx, const char *key, int64_t v)
{
	(void)ctx, (void)key, (void)v;
}

static void no_str(void *ctx, const char *key, const char *v)
{
	(void)ctx, (void)key, (void)v;
}

static void no_arr_open(void *ctx, const char *key)
{
	(void)ctx, (void)key;
}

static void no_arr_close(void *ctx)
{
	(void)ctx;
}

/* The shared printers' text, to f. */
void ac_text_printer(FILE *f, struct aic_printer *p)
{
	*p = (struct aic_printer){
		.text = text_out, .u64 = no_u64, .s64 = no_s64,
		.str = no_str, .arr_open = no_arr_open,
		.arr_close = no_arr_close, .ctx = f,
	};
}

/* On one line, as "aiclassctl set" (and tc qdisc add) reads it. */
static void print_options(FILE *f, const struct ac_instance *in)
{
	struct aic_printer p;

	ac_text_printer(f, &p);
	fputs("  ", f);
	aic_print_opts(&in->cfg, &p);
	fputc('\n', f);
}

static void print_rate(FILE *f, double rb, double rp)
{
	char r[32];

	if (rb < 0)
		fprintf(f, "%10s %8s", "-", "-");
	else
		fprintf(f, "%10s %6.0fpps", aic_fmt_rate_approx(r, sizeof(r),
			rb), rp);
}

static void print_xstats(FILE *f, const struct ac_instance *in)
{
	struct aic_printer p;

	ac_text_printer(f, &p);
	aic_print_qstats(&in->st, &p);
	fputc('\n', f);
}

/* A class stat for the table: its value, or "-". */
static char *cell(char *buf, size_t len, const struct ac_class *cl,
		  const char *key, bool ns)
{
	int64_t v;

	if (!aic_cstat(&cl->cs, key, &v))
		snprintf(buf, len, "-");
	else if (ns)
		aic_fmt_ns(buf, len, v);
	else
		snprintf(buf, len, "%lld", (long long)v);
	return buf;
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
		if (!strcmp(class_kind(cl), "training"))
			cell(w, sizeof(w), cl, "weight", false);
		else
			snprintf(w, sizeof(w), "-");
		cell(a, sizeof(a), cl, "sojourn_avg", true);
		cell(m, sizeof(m), cl, "sojourn_max", true);
		cell(fl, sizeof(fl), cl, "active_flows", false);
		fprintf(f, "  %-6s %-8s %6s %10llu %12llu %6u %8s %5s %8s/%-8s ",
			name, class_kind(cl), w,
			(unsigned long long)cl->b.packets,
			(unsigned long long)cl->b.bytes, cl->b.drops,
			aic_fmt_size(bl, sizeof(bl), cl->b.backlog),
			fl, a, m);
		print_rate(f, cl->rate_bytes, cl->rate_pkts);
		fputc('\n', f);
	}
}

/* The latency bands with an SLO: the SLO, its counters, the probability. */
static void print_slo_table(FILE *f, const struct ac_instance *in)
{
	char slo[16], met[24], missed[24], dg[24], prob[16];
	bool head = false;
	int64_t v;
	int i;

	for (i = 0; i < in->ncls; i++) {
		const struct ac_class *cl = &in->cls[i];
		char name[16];

		if (!aic_cstat(&cl->cs, "slo", &v) || !v)
			continue;
		if (!head)
			fprintf(f, "\n  %-6s %8s %12s %10s %10s %9s\n", "class",
				"slo", "slo_met", "slo_missed",
				"downgrades", "prob");
		head = true;
		snprintf(name, sizeof(name), "%x:%x", cl->classid >> 16,
			 cl->classid & 0xffff);
		aic_fmt_time(slo, sizeof(slo), v);
		cell(met, sizeof(met), cl, "slo_met", false);
		cell(missed, sizeof(missed), cl, "slo_missed", false);
		cell(dg, sizeof(dg), cl, "slo_downgrades", false);
		if (aic_cstat(&cl->cs, "slo_prob", &v))
			snprintf(prob, sizeof(prob), "%.2f%%", v / 1e4);
		else
			snprintf(prob, sizeof(prob), "-");
		fprintf(f, "  %-6s %8s %12s %10s %10s %9s\n", name, slo, met,
			missed, dg, prob);
	}
}

static void print_instance(FILE *f, const struct ac_instance *in)
{
	char h[16], p[16], bl[24];

	fprintf(f, "aiclass %s dev %s %s%s\n", aic_fmt_handle(h, sizeof(h),
		in->handle), in->dev, in->parent == TC_H_ROOT ? "" : "parent ",
		aic_fmt_handle(p, sizeof(p), in->parent));
	print_options(f, in);
	fprintf(f, "  Sent %llu bytes %llu pkt (dropped %u, overlimits %u "
		"requeues %u) backlog %s %up\n",
		(unsigned long long)in->b.bytes,
		(unsigned long long)in->b.packets, in->b.drops,
		in->b.overlimits, in->b.requeues,
		aic_fmt_size(bl, sizeof(bl), in->b.backlog), in->b.qlen);
	if (in->rate_bytes >= 0) {
		fprintf(f, "  rate");
		print_rate(f, in->rate_bytes, in->rate_pkts);
		fputc('\n', f);
	}
	print_xstats(f, in);
	fputc('\n', f);
	print_class_table(f, in);
	print_slo_table(f, in);
}

/* ------------------------------------------------------------------ */
/* JSON: one document, every key always present (null when unknown). */

static void json_rate(struct aic_json *j, double rb, double rp)
{
	if (rb < 0) {
		jw_null(j, "rate_bytes");
		jw_null(j, "rate_packets");
	} else {
		jw_double(j, "rate_bytes", rb);
		jw_double(j, "rate_packets", rp);
	}
}

static void json_options(struct aic_json *j, const struct ac_instance *in)
{
	struct aic_printer p;

	jw_printer(j, &p);
	jw_obj_open(j, "options");
	aic_print_opts(&in->cfg, &p);
	jw_obj_close(j);
}

static void json_basic(struct aic_json *j, const struct ac_basic *b)
{
	jw_u64(j, "bytes", b->bytes);
	jw_u64(j, "packets", b->packets);
	jw_u64(j, "drops", b->drops);
	jw_u64(j, "overlimits", b->overlimits);
	jw_u64(j, "requeues", b->requeues);
	jw_u64(j, "backlog", b->backlog);
	jw_u64(j, "qlen", b->qlen);
}

static void json_instance(struct aic_json *j, const struct ac_instance *in)
{
	struct aic_printer p;
	char h[16];
	int k;

	jw_printer(j, &p);
	jw_obj_open(j, NULL);
	jw_str(j, "dev", in->dev);
	jw_u64(j, "ifindex", in->ifindex);
	jw_str(j, "handle", aic_fmt_handle(h, sizeof(h), in->handle));
	jw_str(j, "parent", aic_fmt_handle(h, sizeof(h), in->parent));
	json_options(j, in);

	jw_obj_open(j, "stats");
	json_basic(j, &in->b);
	json_rate(j, in->rate_bytes, in->rate_pkts);
	aic_print_qstats(&in->st, &p);
	jw_obj_close(j);

	jw_arr_open(j, "classes");
	for (k = 0; k < in->ncls; k++) {
		const struct ac_class *cl = &in->cls[k];

		jw_obj_open(j, NULL);
		snprintf(h, sizeof(h), "%x:%x", cl->classid >> 16,
			 cl->classid & 0xffff);
		jw_str(j, "class", h);
		json_basic(j, &cl->b);
		aic_print_cstats(&cl->cs, &p);
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
	double interval;
	long count;
};

static int parse_view_args(const char *cmd, int argc, char **argv,
			   struct view_args *va)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (i + 1 == argc && (!strcmp(a, "dev") ||
		    !strcmp(a, "handle") || !strcmp(a, "-i") ||
		    !strcmp(a, "--interval") || !strcmp(a, "-n") ||
		    !strcmp(a, "--count"))) {
			ac_err("%s: \"%s\" needs a value (see aiclassctl help %s)",
			       cmd, a, cmd);
			return EXIT_USAGE;
		}
		if (!strcmp(a, "dev") && va->dev) {
			ac_err("%s: duplicate \"dev\"", cmd);
			return EXIT_USAGE;
		}
		if (!strcmp(a, "dev") && i + 1 < argc && !va->dev) {
			va->dev = argv[++i];
		} else if (!strcmp(a, "handle") && i + 1 < argc) {
			if (aic_parse_handle(argv[++i], &va->handle)) {
				ac_err("%s: invalid handle \"%s\" (expected "
				       "such as 1:)", cmd, argv[i]);
				return EXIT_USAGE;
			}
		} else if (!strcmp(a, "--json") || !strcmp(a, "-j")) {
			ac_json = true;
		} else if (!strcmp(a, "--pretty") || !strcmp(a, "-p")) {
			ac_pretty = true;	/* as bpftool's: JSON, indented */
			ac_json = true;
		} else if ((!strcmp(a, "--interval") || !strcmp(a, "-i")) &&
			   i + 1 < argc) {
			if (aic_parse_seconds(argv[++i], &va->interval) ||
			    va->interval > 3600) {
				ac_err("%s: invalid interval \"%s\" (seconds, "
				       "such as 1 or 0.5)", cmd, argv[i]);
				return EXIT_USAGE;
			}
		} else if ((!strcmp(a, "--count") || !strcmp(a, "-n")) &&
			   i + 1 < argc) {
			uint64_t n;

			if (aic_parse_count(argv[++i], &n) || !n || n > 1000000) {
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

	if (ac_json) {
		struct aic_json j;

		jw_init(&j, stdout, ac_pretty);
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
		if (jw_end(&j)) {
			ac_free_state(&st);
			return EXIT_SYS;
		}
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
	if (ac_json) {
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

/* ------------------------------------------------------------------ */
/* metrics: the Prometheus text exposition format (version 0.0.4) */

/* tc's own counters of a qdisc or class (struct ac_basic) */
enum { B_BYTES, B_PACKETS, B_DROPS, B_OVERLIMITS, B_REQUEUES, B_BACKLOG,
       B_QLEN };

static const struct {
	int which;
	struct aic_metric m;
} basic_metrics[] = {
	{ B_BYTES, { "bytes_total", NULL, "Bytes sent." } },
	{ B_PACKETS, { "packets_total", NULL, "Packets sent." } },
	{ B_DROPS, { "drops_total", NULL, "Packets dropped." } },
	{ B_OVERLIMITS, { "overlimits_total", NULL,
			  "Times the qdisc or class was over its limit." } },
	{ B_REQUEUES, { "requeues_total", NULL, "Packets requeued." } },
	{ B_BACKLOG, { "backlog_bytes", NULL, "Bytes queued." } },
	{ B_QLEN, { "backlog_packets", NULL, "Packets queued." } },
};

static bool basic_value(const struct ac_basic *b, int which, char *buf,
			size_t len)
{
	uint64_t v = 0;

	if (!b->have_basic && (which == B_BYTES || which == B_PACKETS))
		return false;
	if (!b->have_queue && which != B_BYTES && which != B_PACKETS)
		return false;
	switch (which) {
	case B_BYTES:
		v = b->bytes;
		break;
	case B_PACKETS:
		v = b->packets;
		break;
	case B_DROPS:
		v = b->drops;
		break;
	case B_OVERLIMITS:
		v = b->overlimits;
		break;
	case B_REQUEUES:
		v = b->requeues;
		break;
	case B_BACKLOG:
		v = b->backlog;
		break;
	case B_QLEN:
		v = b->qlen;
		break;
	}
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return true;
}

/* A label value: backslash, double quote and newline escaped. */
static void prom_label(FILE *f, const char *name, const char *v, bool comma)
{
	fprintf(f, "%s%s=\"", comma ? "," : "", name);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
	fputc('"', f);
}

struct prom {
	FILE *f;
	char last[96];		/* the family whose HELP and TYPE are out */
};

/* HELP and TYPE before the first sample of a family, then the sample. */
static void prom_sample(struct prom *pr, const char *scope,
			const struct aic_metric *m,
			const struct ac_instance *in,
			const struct ac_class *cl, const char *value)
{
	char name[96], h[16];
	size_t n;

	snprintf(name, sizeof(name), "aiclass_%s_%s", scope, m->name);
	if (strcmp(name, pr->last)) {
		n = strlen(name);
		fprintf(pr->f, "# HELP %s %s\n# TYPE %s %s\n", name, m->help,
			name, n > 6 && !strcmp(name + n - 6, "_total") ?
			"counter" : "gauge");
		snprintf(pr->last, sizeof(pr->last), "%s", name);
	}
	fprintf(pr->f, "%s{", name);
	prom_label(pr->f, "device", in->dev, false);
	if (cl) {
		snprintf(h, sizeof(h), "%x:%x", cl->classid >> 16,
			 cl->classid & 0xffff);
		prom_label(pr->f, "class", h, true);
		prom_label(pr->f, "kind", class_kind(cl), true);
	} else {
		prom_label(pr->f, "handle", aic_fmt_handle(h, sizeof(h),
			   in->handle), true);
	}
	if (m->label)
		fprintf(pr->f, ",%s", m->label);
	fprintf(pr->f, "} %s\n", value);
}

/*
 * Family by family (the format wants a family's samples together): the
 * qdiscs' metrics, then the classes'; tc's counters first, then the
 * module's from the shared stat table.
 */
static void print_metrics(FILE *f, const struct ac_state *st)
{
	struct prom pr = { .f = f };
	const struct aic_metric *m;
	unsigned int k;
	char v[32];
	int i, c;

	for (k = 0; k < ARRAY_SIZE(basic_metrics); k++)
		for (i = 0; i < st->ninst; i++)
			if (basic_value(&st->inst[i].b, basic_metrics[k].which,
					v, sizeof(v)))
				prom_sample(&pr, "qdisc", &basic_metrics[k].m,
					    &st->inst[i], NULL, v);
	for (k = 0; (m = aic_qmetric(k)); k++)
		for (i = 0; i < st->ninst; i++)
			if (aic_qmetric_value(&st->inst[i].st, k, v, sizeof(v)))
				prom_sample(&pr, "qdisc", m, &st->inst[i], NULL,
					    v);
	for (k = 0; k < ARRAY_SIZE(basic_metrics); k++)
		for (i = 0; i < st->ninst; i++)
			for (c = 0; c < st->inst[i].ncls; c++)
				if (basic_value(&st->inst[i].cls[c].b,
						basic_metrics[k].which, v,
						sizeof(v)))
					prom_sample(&pr, "class",
						    &basic_metrics[k].m,
						    &st->inst[i],
						    &st->inst[i].cls[c], v);
	for (k = 0; (m = aic_cmetric(k)); k++)
		for (i = 0; i < st->ninst; i++)
			for (c = 0; c < st->inst[i].ncls; c++)
				if (aic_cmetric_value(&st->inst[i].cls[c].cs,
						      k, v, sizeof(v)))
					prom_sample(&pr, "class", m,
						    &st->inst[i],
						    &st->inst[i].cls[c], v);
}

int cmd_metrics(struct nl_sock *sk, int argc, char **argv)
{
	struct view_args va = { .interval = -1 };
	struct ac_state st = { 0 };
	int ifindex, err;

	err = parse_view_args("metrics", argc, argv, &va);
	if (err)
		return err;
	if (va.interval != -1 || va.count) {
		ac_err("metrics: --interval and --count are for show and watch");
		return EXIT_USAGE;
	}
	if (ac_json) {
		ac_err("metrics: the output is Prometheus text; --json is for show");
		return EXIT_USAGE;
	}
	err = first_sample(sk, &va, &ifindex, &st);
	if (err)
		return err;
	print_metrics(stdout, &st);
	ac_free_state(&st);
	return fflush(stdout) || ferror(stdout) ? EXIT_SYS : EXIT_OK;
}
