// SPDX-License-Identifier: GPL-2.0
/*
 * aiclassctl	show, watch and tune live aiclass qdiscs.
 *
 *	aiclassctl show [dev DEV] [handle H] [--json] [--interval S]
 *	aiclassctl set dev DEV [handle H] OPTION VALUE... [weight CLASS=W...]
 *	aiclassctl watch [dev DEV] [handle H] [--interval S] [--count N]
 *	aiclassctl apply FILE [dev DEV] [handle H] [--create]
 *	aiclassctl profile NAME dev DEV [handle H] [--create]
 *
 * Files: aiclassctl.c (this: command line), nl.c (rtnetlink via libnl-3),
 * show.c (show, watch), set.c (set, apply, profile, presets), units.c
 * (tc-style values), json.c (JSON writer).  See aiclassctl(8).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "aiclassctl.h"

const char *progname = "aiclassctl";

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

static void usage(FILE *f)
{
	fprintf(f,
"Usage: aiclassctl COMMAND [ARGS]\n"
"\n"
"Show, watch and tune live aiclass qdiscs (AI inference vs training).\n"
"\n"
"Commands:\n"
"  show [dev DEV] [handle H] [--json] [--interval S]\n"
"        configuration, qdisc stats and the class table; rates are\n"
"        measured over S seconds between two samples (default 0.2,\n"
"        0 = one sample, no rates)\n"
"  set dev DEV [handle H] [OPTION VALUE]... [weight CLASS=W]...\n"
"        change a live qdisc, all or nothing\n"
"  watch [dev DEV] [handle H] [--interval S] [--count N]\n"
"        live view refreshed every S seconds (default 1); Ctrl-C quits\n"
"  apply FILE [dev DEV] [handle H] [--create]\n"
"        apply a config file (--create installs a root aiclass 1: first\n"
"        if the device has none)\n"
"  profile NAME dev DEV [handle H] [--create]\n"
"  profile NAME --print | profile list\n"
"        presets: training, inference, mixed\n"
"\n"
"Options for set and config files (units as in tc):\n"
"  lat_bands N  train_classes N  weights W...  thresholds SIZE...\n"
"  burst SIZE  train_share PCT  elephant SIZE  idle TIME  flows N\n"
"  limit PACKETS  lat_limit PACKETS  memory_limit SIZE  quantum SIZE\n"
"  ce_threshold TIME|off  rate RATE|off  roce_port PORT|off\n"
"  priomap CLASS|auto...  default_class CLASS  weight CLASS=W...\n"
"  SIZE: 1514, 64kb, 2mb   TIME: 500us, 10ms, 1s   RATE: 100mbit, 10gbit\n"
"\n"
"Exit status: 0 ok, 1 usage or malformed value, 2 kernel refused,\n"
"  3 no such device / no aiclass on it / no such class, 4 permission\n"
"  denied, 5 netlink or system error.\n"
"\n"
"  -h, --help     this text\n"
"  -V, --version  print the version\n");
}

int main(int argc, char **argv)
{
	struct nl_sock *sk;
	const char *cmd;
	int err;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("aiclassctl %s\n", AICLASSCTL_VERSION);
		return EXIT_OK;
	}
	if (strcmp(cmd, "show") && strcmp(cmd, "set") && strcmp(cmd, "watch") &&
	    strcmp(cmd, "apply") && strcmp(cmd, "profile")) {
		ac_err("unknown command \"%s\" (see aiclassctl --help)", cmd);
		return EXIT_USAGE;
	}
	/* "profile NAME --print" and "profile list" need no socket */
	if (!strcmp(cmd, "profile") && (argc == 3 ||
	    (argc == 4 && !strcmp(argv[3], "--print"))))
		return cmd_profile(NULL, argc - 2, argv + 2);

	err = ac_nl_open(&sk);
	if (err)
		return err;
	argc -= 2;
	argv += 2;
	if (!strcmp(cmd, "show"))
		err = cmd_show(sk, argc, argv);
	else if (!strcmp(cmd, "set"))
		err = cmd_set(sk, argc, argv);
	else if (!strcmp(cmd, "watch"))
		err = cmd_watch(sk, argc, argv);
	else if (!strcmp(cmd, "apply"))
		err = cmd_apply(sk, argc, argv);
	else
		err = cmd_profile(sk, argc, argv);
	ac_nl_close(sk);
	return err;
}
