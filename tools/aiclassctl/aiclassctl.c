// SPDX-License-Identifier: GPL-2.0
/*
 * aiclassctl	show, watch and tune live aiclass qdiscs.
 *
 *	aiclassctl [-j] [-p] [-n NETNS] COMMAND [ARGS]   (usage(), aiclassctl(8))
 *
 * Files: aiclassctl.c (this: global options, commands, help), nl.c
 * (rtnetlink via libnl-3), show.c (show, watch, metrics), set.c (set, apply,
 * profile, the presets); each includes aiclassctl.h and nothing of the
 * others.  The options, stats, units and JSON writer are those of
 * ../lib/aiclass, which the tc plugin shares.
 */
#define _GNU_SOURCE		/* setns() */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aiclassctl.h"

const char *progname = "aiclassctl";
bool ac_json;
bool ac_pretty;

void ac_err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The commands, their synopsis and what they do: --help, "help CMD". */
static const struct {
	const char *name;
	const char *synopsis;
	const char *text;
} cmds[] = {
	{ "show", "show [dev DEV] [handle H] [-i|--interval S]",
	  "configuration, qdisc stats and the class table; rates are\n"
	  "measured over S seconds between two samples (default 0.2,\n"
	  "0 = one sample, no rates); with -j one JSON document\n" },
	{ "set", "set dev DEV [handle H] [OPTION VALUE]... [weight CLASS=W]... [slo CLASS=TIME]... [--check]",
	  "change a live qdisc, all or nothing; CLASS is 1:11, :11 or 11\n"
	  "(the minor alone: the class of the qdisc's own handle); --check\n"
	  "only parses and prints the change (dev not needed)\n" },
	{ "watch", "watch [dev DEV] [handle H] [-i|--interval S] [-n|--count N]",
	  "live view refreshed every S seconds (default 1); Ctrl-C quits\n" },
	{ "metrics", "metrics [dev DEV] [handle H]",
	  "every qdisc's and class's counters in the Prometheus text\n"
	  "format (aiclass_qdisc_*, aiclass_class_*), for node_exporter's\n"
	  "textfile collector\n" },
	{ "apply", "apply FILE [dev DEV] [handle H] [--create] [--check]",
	  "apply a configuration file (--create installs a root aiclass\n"
	  "1: first if the device has none)\n" },
	{ "profile", "profile NAME dev DEV [handle H] [--create] [--check] | profile NAME --print | profile list",
	  "apply a preset: training, inference, mixed, roce, diffserv\n" },
	{ "options", "options",
	  "every option with its values, range and default (-j: as JSON)\n" },
	{ "help", "help [COMMAND]", "this text, or a command's\n" },
};

static void usage_options(FILE *f)
{
	fprintf(f,
"Options of set, apply and configuration files (as tc qdisc add reads them):\n");
	aic_usage_opts(f);
	fprintf(f,
"  weight CLASS=W...            DRR weight of one training class; 1..%u\n"
"  slo CLASS=TIME|off...        latency SLO of one latency band; 10us..1s\n"
"  SIZE: 1514, 64Kb, 2Mb   TIME: 500us, 10ms, 1s   RATE: 100Mbit, 10Gbit\n",
		AICLASS_MAX_WEIGHT);
}

void ac_usage_cmd(FILE *f, const char *cmd)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (strcmp(cmds[i].name, cmd))
			continue;
		fprintf(f, "Usage: aiclassctl [-j] [-p] [-n NETNS] %s\n\n%s",
			cmds[i].synopsis, cmds[i].text);
		if (!strcmp(cmd, "set") || !strcmp(cmd, "apply") ||
		    !strcmp(cmd, "profile")) {
			fputc('\n', f);
			usage_options(f);
		}
	}
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
"Usage: aiclassctl [-j|--json] [-p|--pretty] [-n|--netns NETNS] COMMAND [ARGS]\n"
"       aiclassctl -h|--help | -V|--version\n"
"\n"
"Show, watch and tune live aiclass qdiscs (AI inference vs training).\n"
"\n"
"Commands:\n");
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		const char *t = cmds[i].text, *nl;

		fprintf(f, "  %s\n", cmds[i].synopsis);
		for (; *t; t = nl + 1) {
			nl = strchr(t, '\n');
			fprintf(f, "        %.*s\n", (int)(nl - t), t);
		}
	}
	fprintf(f,
"\n"
"Global options:\n"
"  -j, --json     JSON output (compact; show, options, --check)\n"
"  -p, --pretty   indented JSON (implies -j, as bpftool's)\n"
"  -n, --netns NETNS\n"
"                 in network namespace NETNS (/run/netns/NETNS, as ip -n)\n"
"  -h, --help     this text; COMMAND help or help COMMAND: a command's\n"
"  -V, --version  print the version\n"
"\n");
	usage_options(f);
	fprintf(f,
"\n"
"Exit status: 0 ok, 1 usage or malformed value, 2 kernel refused,\n"
"  3 no such device / no aiclass on it / no such class, 4 permission\n"
"  denied, 5 netlink or system error.\n");
}

bool ac_help_asked(const char *cmd, int argc, char **argv)
{
	if (argc < 1 || (strcmp(argv[0], "help") && strcmp(argv[0], "-h") &&
			 strcmp(argv[0], "--help")))
		return false;
	ac_usage_cmd(stdout, cmd);
	return true;
}

/* aiclassctl options: the table of lib/aiclass, text or JSON. */
static int cmd_options(void)
{
	struct aic_json j;
	unsigned int i;

	if (!ac_json) {
		usage_options(stdout);
		return fflush(stdout) ? EXIT_SYS : EXIT_OK;
	}
	jw_init(&j, stdout, ac_pretty);
	jw_arr_open(&j, NULL);
	for (i = 0; i < aic_nopts; i++) {
		const struct aic_opt *o = &aic_opts[i];

		jw_obj_open(&j, NULL);
		jw_str(&j, "name", o->name);
		jw_u64(&j, "attr", o->attr);
		jw_u64(&j, "width", o->width);
		jw_u64(&j, "min", o->min);
		jw_u64(&j, "max", o->max);
		if (o->def_dynamic)
			jw_null(&j, "default");
		else
			jw_u64(&j, "default", o->def);
		jw_bool(&j, "pow2", o->pow2);
		if (o->off)
			jw_str(&j, "off", o->off);
		else
			jw_null(&j, "off");
		if (o->neg)
			jw_str(&j, "neg", o->neg);
		else
			jw_null(&j, "neg");
		jw_obj_close(&j);
	}
	jw_arr_close(&j);
	return jw_end(&j) ? EXIT_SYS : EXIT_OK;
}

/* -n NETNS: into /run/netns/NETNS, as ip -n and tc -n do (ip netns add). */
static int enter_netns(const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, "..")) {
		ac_err("invalid network namespace name \"%s\"", name);
		return EXIT_USAGE;
	}
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ac_err("cannot open network namespace \"%s\": %s", name,
		       strerror(errno));
		return errno == ENOENT ? EXIT_NODEV :
		       errno == EACCES ? EXIT_PERM : EXIT_SYS;
	}
	if (setns(fd, CLONE_NEWNET) < 0) {
		int e = errno;

		close(fd);
		ac_err("cannot enter network namespace \"%s\": %s", name,
		       strerror(e));
		return e == EPERM ? EXIT_PERM : EXIT_SYS;
	}
	close(fd);
	return 0;
}

static bool is_cmd(const char *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(cmds[i].name, s))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	const char *cmd, *netns = NULL;
	struct nl_sock *sk;
	int err;

	for (argc--, argv++; argc > 0 && argv[0][0] == '-'; argc--, argv++) {
		const char *a = argv[0];

		if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			ac_json = true;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--pretty")) {
			ac_pretty = true;	/* as bpftool's: JSON, indented */
			ac_json = true;
		} else if (!strcmp(a, "-n") || !strcmp(a, "--netns")) {
			if (argc < 2) {
				ac_err("%s needs a network namespace name", a);
				return EXIT_USAGE;
			}
			netns = argv[1];
			argc--;
			argv++;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("aiclassctl %s\n", AICLASSCTL_VERSION);
			return EXIT_OK;
		} else {
			ac_err("unknown option \"%s\" (see aiclassctl --help)",
			       a);
			return EXIT_USAGE;
		}
	}
	if (argc < 1) {
		ac_err("no command (see aiclassctl --help)");
		return EXIT_USAGE;
	}
	cmd = argv[0];
	if (!is_cmd(cmd)) {
		ac_err("unknown command \"%s\" (see aiclassctl --help)", cmd);
		return EXIT_USAGE;
	}
	argc--;
	argv++;
	if (!strcmp(cmd, "help")) {
		if (argc == 0) {
			usage(stdout);
			return EXIT_OK;
		}
		if (argc == 1 && (!strcmp(argv[0], "-h") ||
				  !strcmp(argv[0], "--help"))) {
			ac_usage_cmd(stdout, "help");
			return EXIT_OK;
		}
		if (argc > 1 || !is_cmd(argv[0])) {
			ac_err("help: no command \"%s\" (see aiclassctl --help)",
			       argv[0]);
			return EXIT_USAGE;
		}
		ac_usage_cmd(stdout, argv[0]);
		return EXIT_OK;
	}
	if (ac_help_asked(cmd, argc, argv))
		return EXIT_OK;
	if (!strcmp(cmd, "options")) {
		if (argc) {
			ac_err("options: unexpected \"%s\"", argv[0]);
			return EXIT_USAGE;
		}
		return cmd_options();
	}
	/* "profile NAME --print" and "profile list" need no socket */
	if (!strcmp(cmd, "profile") && (argc == 1 ||
	    (argc == 2 && !strcmp(argv[1], "--print"))))
		return cmd_profile(NULL, argc, argv);

	if (netns) {
		err = enter_netns(netns);
		if (err)
			return err;
	}
	err = ac_nl_open(&sk);
	if (err)
		return err;
	if (!strcmp(cmd, "show"))
		err = cmd_show(sk, argc, argv);
	else if (!strcmp(cmd, "set"))
		err = cmd_set(sk, argc, argv);
	else if (!strcmp(cmd, "watch"))
		err = cmd_watch(sk, argc, argv);
	else if (!strcmp(cmd, "metrics"))
		err = cmd_metrics(sk, argc, argv);
	else if (!strcmp(cmd, "apply"))
		err = cmd_apply(sk, argc, argv);
	else
		err = cmd_profile(sk, argc, argv);
	ac_nl_close(sk);
	return err;
}
