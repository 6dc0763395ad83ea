// SPDX-License-Identifier: GPL-2.0
/*
 * set.c	aiclassctl set, apply and profile: parse option keywords (from
 *		the command line, a config file or a preset), check them
 *		against the live qdisc, and apply them all or not at all.
 *
 * Qdisc options go in one RTM_NEWQDISC, which the kernel applies whole or
 * refuses whole.  Per-class weights and SLOs are one RTM_NEWTCLASS each,
 * sent after it; if one is refused, every message already applied is undone
 * from the configuration read just before, newest first.
 */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/pkt_sched.h>

#include "aiclassctl.h"

/* ------------------------------------------------------------------ */
/* Presets: the article's advice is to find the dominant load first and
 * tune for it.  Each preset is a config file, parsed like any other.
 */

const struct ac_profile ac_profiles[] = {
	{ "training", "training dominates: full link, collectives in step",
	  "# Training dominates: keep the link full and every flow of a\n"
	  "# collective at the same pace; inference still goes first, but\n"
	  "# may run ahead of backlogged training only a little.\n"
	  "train_share 50\n"
	  "burst 16Kb\n"
	  "idle 5ms\n"
	  "ce_threshold 1ms\n"
	  "memory_limit 64Mb\n" },
	{ "inference", "inference dominates: lowest, steadiest RPC latency",
	  "# Inference dominates: RPC bursts first and steady; bigger\n"
	  "# responses stay in the latency bands; training is background\n"
	  "# with short queues.\n"
	  "train_share 5\n"
	  "burst 256Kb\n"
	  "elephant 1Mb\n"
	  "idle 500us\n"
	  "ce_threshold 500us\n" },
	{ "mixed", "both matter: the module's defaults, ECN on training",
	  "# Both loads matter: the module's defaults, with ECN marking on\n"
	  "# training queues.\n"
	  "train_share 10\n"
	  "burst 64Kb\n"
	  "elephant 256Kb\n"
	  "idle 10ms\n"
	  "ce_threshold 1ms\n" },
	{ "roce", "RoCEv2 fabric: DSCP 26 data to 1:11, CNP (48) and EF to 1:1",
	  "# RoCEv2 as NICs mark it by default: data in DSCP 26 to the\n"
	  "# default training class, congestion notifications (CNP, DSCP 48)\n"
	  "# and expedited forwarding (EF, 46) to the first latency band.\n"
	  "dscpmap 26:11,46:1,48:1\n"
	  "ce_threshold 1ms\n" },
	{ "diffserv", "diffserv4-like: voice 1:1, video 1:2, AF1x 1:3, bulk 1:11",
	  "# DSCP classes as cake's diffserv4 groups them: voice and network\n"
	  "# control (CS4-CS7, VA, EF) to 1:1; video and signalling (CS2,\n"
	  "# CS3, AF2x, AF3x, AF4x) to 1:2; AF1x to 1:3; bulk (CS1, LE) to\n"
	  "# the first training class 1:11.  Best effort (0) and the rest\n"
	  "# stay auto.\n"
	  "dscpmap 1:11,8:11,10:3,12:3,14:3,16:2,18:2,20:2,22:2,24:2,26:2,"
	  "28:2,30:2,32:1,34:2,36:2,38:2,40:1,44:1,46:1,48:1,56:1\n" },
};

const unsigned int ac_nprofiles = ARRAY_SIZE(ac_profiles);

const struct ac_profile *ac_profile_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < ac_nprofiles; i++)
		if (!strcmp(ac_profiles[i].name, name))
			return &ac_profiles[i];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Parsing keywords */

struct parse_ctx {
	const char *where;	/* "set", "FILE:LINE", "profile NAME" */
	uint64_t seen;		/* keywords given in this source */
	bool seen_cw[256];	/* class weights given in this source */
	bool seen_cslo[256];	/* class SLOs given in this source */
	char err[256];
};

static int bad(const struct parse_ctx *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int bad(const struct parse_ctx *p, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	ac_err("%s: %s", p->where, text);
	return EXIT_USAGE;
}

/* "1:11=4" */
static int parse_class_weight(struct parse_ctx *p, const char *s,
			      struct ac_change *ch)
{
	const char *eq = strchr(s, '=');
	uint32_t major, minor, w;
	char cls[32];
	int i;

	if (!eq || eq == s || (size_t)(eq - s) >= sizeof(cls))
		return bad(p, "invalid weight \"%s\" (expected CLASS=WEIGHT, "
			   "such as 1:11=4 or 11=4)", s);
	memcpy(cls, s, eq - s);
	cls[eq - s] = '\0';
	if (aic_parse_classid(cls, &major, &minor) || !aic_minor_ok(minor))
		return bad(p, "invalid class \"%s\" (latency bands are 1:1 to "
			   "1:8, training classes 1:11 to 1:20; the minor alone "
			   "also does: 11)", cls);
	if (aic_parse_weight(eq + 1, &w, p->err, sizeof(p->err)))
		return bad(p, "%s", p->err);
	if (p->seen_cw[minor])
		return bad(p, "duplicate weight for class %s", cls);
	p->seen_cw[minor] = true;
	for (i = 0; i < ch->ncw; i++)
		if (ch->cw[i].minor == minor)
			break;
	if (i == ch->ncw) {
		if (ch->ncw == AICLASS_MAX_CLASSES)
			return bad(p, "too many class weights");
		ch->ncw++;
	}
	ch->cw[i].major = major;
	ch->cw[i].minor = minor;
	ch->cw[i].weight = w;
	return 0;
}

/* "1:1=1ms", "2=off" */
static int parse_class_slo(struct parse_ctx *p, const char *s,
			   struct ac_change *ch)
{
	const char *eq = strchr(s, '=');
	uint32_t major, minor, us;
	char cls[32];
	int i;

	if (!eq || eq == s || (size_t)(eq - s) >= sizeof(cls))
		return bad(p, "invalid slo \"%s\" (expected CLASS=TIME, "
			   "such as 1:1=1ms or 2=off)", s);
	memcpy(cls, s, eq - s);
	cls[eq - s] = '\0';
	if (aic_parse_classid(cls, &major, &minor) || !aic_minor_ok(minor))
		return bad(p, "invalid class \"%s\" (latency bands are 1:1 to "
			   "1:8; the minor alone also does: 1)", cls);
	if (aic_parse_slo(eq + 1, &us, p->err, sizeof(p->err)))
		return bad(p, "%s", p->err);
	if (p->seen_cslo[minor])
		return bad(p, "duplicate slo for class %s", cls);
	p->seen_cslo[minor] = true;
	for (i = 0; i < ch->ncslo; i++)
		if (ch->cslo[i].minor == minor)
			break;
	if (i == ch->ncslo) {
		if (ch->ncslo == AICLASS_MAX_CLASSES)
			return bad(p, "too many class SLOs");
		ch->ncslo++;
	}
	ch->cslo[i].major = major;
	ch->cslo[i].minor = minor;
	ch->cslo[i].slo = us;
	return 0;
}

/*
 * Parse "KEYWORD VALUE..." pairs from argv into *ch; later values replace
 * earlier ones from another source (a preset), a keyword repeated in the
 * same source is an error.  Returns 0 or EXIT_USAGE.
 */
static int parse_keywords(struct parse_ctx *p, int argc, char **argv,
			  struct ac_change *ch)
{
	int i = 0, err, n;

	while (i < argc) {
		if (!strcmp(argv[i], "weight")) {
			i++;
			if (i >= argc || !strchr(argv[i], '='))
				return bad(p, "\"weight\" needs CLASS=WEIGHT, "
					   "such as weight 1:11=4");
			while (i < argc && strchr(argv[i], '=')) {
				err = parse_class_weight(p, argv[i++], ch);
				if (err)
					return err;
			}
			continue;
		}
		if (!strcmp(argv[i], "slo")) {
			i++;
			if (i >= argc || !strchr(argv[i], '='))
				return bad(p, "\"slo\" needs CLASS=TIME, "
					   "such as slo 1:1=1ms");
			while (i < argc && strchr(argv[i], '=')) {
				err = parse_class_slo(p, argv[i++], ch);
				if (err)
					return err;
			}
			continue;
		}
		if (strchr(argv[i], '=')) {	/* "weight" is optional */
			err = parse_class_weight(p, argv[i++], ch);
			if (err)
				return err;
			continue;
		}
		n = aic_parse_opt(&ch->opts, &p->seen, argc - i, argv + i,
				  p->err, sizeof(p->err));
		if (n < 0)
			return bad(p, "%s", p->err);
		if (n == 0)
			return bad(p, "unknown keyword \"%s\" (see aiclassctl "
				   "help set)", argv[i]);
		i += n;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Config files */

struct file_cfg {
	char dev[IF_NAMESIZE];
	struct ac_change ch;
};

/* Split a line into words at blanks; '#' starts a comment. */
static int split_words(char *line, char **w, int max)
{
	int n = 0;
	char *s = line;

	for (;;) {
		while (*s && isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			break;
		if (n == max)
			return -1;
		w[n++] = s;
		while (*s && !isspace((unsigned char)*s) && *s != '#')
			s++;
		if (*s == '#') {
			*s = '\0';
			break;
		}
		if (*s)
			*s++ = '\0';
	}
	return n;
}

static int parse_text(const char *name, const char *text, size_t len,
		      struct file_cfg *fc, int depth);

static int apply_profile_text(struct parse_ctx *p, const char *pname,
			      struct file_cfg *fc, int depth)
{
	const struct ac_profile *pr = ac_profile_by_name(pname);
	char where[64];

	if (!pr)
		return bad(p, "unknown profile \"%s\" (aiclassctl profile "
			   "list)", pname);
	if (depth > 0)
		return bad(p, "a profile cannot name another profile");
	snprintf(where, sizeof(where), "profile %s", pr->name);
	return parse_text(where, pr->text, strlen(pr->text), fc, depth + 1);
}

/*
 * A config file: one "keyword value..." per line, the keywords of
 * "aiclassctl set", plus "dev NAME" and "profile NAME" (a preset the
 * rest of the file adjusts, given first).
 */
static int parse_text(const char *name, const char *text, size_t len,
		      struct file_cfg *fc, int depth)
{
	struct parse_ctx p = { 0 };
	char where[300], *buf, *line, *next;
	bool body = false;
	int lineno = 0, err = 0;

	buf = malloc(len + 1);
	if (!buf) {
		ac_err("out of memory");
		return EXIT_SYS;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	for (line = buf; line && !err; line = next) {
		char *w[64];
		int n;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		snprintf(where, sizeof(where), "%s:%d", name, lineno);
		p.where = where;
		n = split_words(line, w, ARRAY_SIZE(w));
		if (n < 0) {
			err = bad(&p, "line too long");
		} else if (n == 0) {
			continue;
		} else if (!strcmp(w[0], "dev")) {
			if (n != 2 || strlen(w[1]) >= IF_NAMESIZE)
				err = bad(&p, "\"dev\" needs one device name");
			else if (fc->dev[0])
				err = bad(&p, "duplicate \"dev\"");
			else
				strcpy(fc->dev, w[1]);
		} else if (!strcmp(w[0], "profile")) {
			if (n != 2)
				err = bad(&p, "\"profile\" needs one name");
			else if (body)
				err = bad(&p, "\"profile\" must come before "
					  "the options it adjusts");
			else
				err = apply_profile_text(&p, w[1], fc, depth);
			body = true;
		} else {
			body = true;
			err = parse_keywords(&p, n, w, &fc->ch);
		}
	}
	free(buf);
	return err;
}

static int read_file(const char *path, struct file_cfg *fc)
{
	char *text = NULL;
	size_t len = 0, cap = 0;
	FILE *f;
	int err;

	f = fopen(path, "r");
	if (!f) {
		ac_err("cannot open %s: %s", path, strerror(errno));
		return EXIT_USAGE;
	}
	for (;;) {
		size_t n;

		if (cap - len < 4096) {
			char *t;

			cap = cap ? 2 * cap : 8192;
			if (cap > (1 << 20)) {
				ac_err("%s: file too large", path);
				err = EXIT_USAGE;
				goto out;
			}
			t = realloc(text, cap);
			if (!t) {
				ac_err("out of memory");
				err = EXIT_SYS;
				goto out;
			}
			text = t;
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		ac_err("cannot read %s", path);
		err = EXIT_USAGE;
		goto out;
	}
	err = parse_text(path, text, len, fc, 0);
out:
	free(text);
	fclose(f);
	return err;
}

/* ------------------------------------------------------------------ */
/* Applying a change */

enum op_kind { OP_QDISC, OP_CLASS, OP_SLO };

struct op {
	enum op_kind kind;
	struct ac_instance *in;
	struct aic_config opts, undo_opts;	/* OP_QDISC */
	uint8_t minor;				/* OP_CLASS, OP_SLO */
	uint32_t weight, undo_weight;		/* OP_CLASS */
	uint32_t slo, undo_slo;			/* OP_SLO */
	bool can_undo;
};

static void class_name(char *buf, size_t len, const struct ac_instance *in,
		       uint8_t minor)
{
	snprintf(buf, len, "%x:%x", in->handle >> 16, minor);
}

static uint32_t cur_weight(const struct ac_instance *in, uint8_t minor,
			   bool *known)
{
	int i;

	for (i = 0; i < in->ncls; i++) {
		const struct ac_class *cl = &in->cls[i];
		int64_t w;

		if ((cl->classid & 0xffff) == minor &&
		    aic_cstat(&cl->cs, "weight", &w)) {
			*known = true;
			return w;
		}
	}
	if (minor >= AICLASS_TRAIN_MINOR_MIN &&
	    (unsigned int)(minor - AICLASS_TRAIN_MINOR_MIN) < in->cfg.nweights) {
		*known = true;
		return in->cfg.weights[minor - AICLASS_TRAIN_MINOR_MIN];
	}
	*known = false;
	return 0;
}

/*
 * A latency band's SLO now: the class dump's (kept with the class stats),
 * else the qdisc's list; a qdisc that dumps no list has no SLO at all.
 */
static uint32_t cur_slo(const struct ac_instance *in, uint8_t minor,
			bool *known)
{
	int i;

	for (i = 0; i < in->ncls; i++) {
		const struct ac_class *cl = &in->cls[i];
		int64_t v;

		if ((cl->classid & 0xffff) == minor &&
		    aic_cstat(&cl->cs, "slo", &v)) {
			*known = true;
			return v;
		}
	}
	*known = minor >= AICLASS_LAT_MINOR_MIN &&
		 minor <= AICLASS_LAT_MINOR_MAX;
	if (*known && in->cfg.have & AIC_BIT(TCA_AICLASS_SLOS) &&
	    (unsigned int)(minor - AICLASS_LAT_MINOR_MIN) < in->cfg.nslos)
		return in->cfg.slos[minor - AICLASS_LAT_MINOR_MIN];
	return 0;
}

/*
 * The options of c, with the values they have now in *cur.  The kernel
 * derives the thresholds again when lat_bands or elephant change, and
 * keeps weights and SLOs per class, so those are restored along with them.
 * The kernel dumps no SLO list while no band has an SLO: then every band's
 * is off, and the undo says so.
 */
static bool undo_config(const struct aic_config *c, const struct aic_config *cur,
			struct aic_config *u)
{
	uint64_t want = c->have;
	int i;

	if (want & (AIC_BIT(TCA_AICLASS_LAT_BANDS) | AIC_BIT(TCA_AICLASS_ELEPHANT)))
		want |= AIC_BIT(TCA_AICLASS_THRESHOLDS);
	if (want & AIC_BIT(TCA_AICLASS_TRAIN_CLASSES))
		want |= AIC_BIT(TCA_AICLASS_WEIGHTS);
	if (want & AIC_BIT(TCA_AICLASS_LAT_BANDS))
		want |= AIC_BIT(TCA_AICLASS_SLOS);
	memset(u, 0, sizeof(*u));
	for (i = 0; i <= TCA_AICLASS_MAX; i++) {
		if (!(want & AIC_BIT(i)))
			continue;
		if (i == TCA_AICLASS_SLOS && !(cur->have & AIC_BIT(i)) &&
		    cur->have & AIC_BIT(TCA_AICLASS_LAT_BANDS)) {
			u->have |= AIC_BIT(i);
			u->nslos = cur->val[TCA_AICLASS_LAT_BANDS];
			continue;	/* all off */
		}
		if (!(cur->have & AIC_BIT(i)))
			return false;
		u->have |= AIC_BIT(i);
		u->val[i] = cur->val[i];
	}
	memcpy(u->weights, cur->weights, sizeof(u->weights));
	u->nweights = cur->nweights;
	memcpy(u->thresholds, cur->thresholds, sizeof(u->thresholds));
	u->nthresholds = cur->nthresholds;
	memcpy(u->priomap, cur->priomap, sizeof(u->priomap));
	memcpy(u->dscpmap, cur->dscpmap, sizeof(u->dscpmap));
	if (cur->have & AIC_BIT(TCA_AICLASS_SLOS)) {
		memcpy(u->slos, cur->slos, sizeof(u->slos));
		u->nslos = cur->nslos;
	}
	return true;
}

static int count_of(const struct aic_config *now, const struct aic_config *ch,
		    int attr, int def)
{
	if (ch->have & AIC_BIT(attr))
		return ch->val[attr];
	if (now->have & AIC_BIT(attr))
		return now->val[attr];
	return def;
}

/* Does the class exist once the qdisc options are applied? */
static bool class_exists(const struct ac_instance *in,
			 const struct aic_config *ch, uint8_t minor)
{
	int lat = count_of(&in->cfg, ch, TCA_AICLASS_LAT_BANDS,
			   AICLASS_DEF_LAT_BANDS);
	int trn = count_of(&in->cfg, ch, TCA_AICLASS_TRAIN_CLASSES,
			   AICLASS_DEF_TRAIN_CLASSES);

	if (minor >= AICLASS_LAT_MINOR_MIN && minor <= AICLASS_LAT_MINOR_MAX)
		return minor < AICLASS_LAT_MINOR_MIN + lat;
	return minor >= AICLASS_TRAIN_MINOR_MIN &&
	       minor < AICLASS_TRAIN_MINOR_MIN + trn;
}

static int unknown_class(const struct ac_instance *in,
			 const struct aic_config *ch, uint8_t minor)
{
	int lat = count_of(&in->cfg, ch, TCA_AICLASS_LAT_BANDS,
			   AICLASS_DEF_LAT_BANDS);
	int trn = count_of(&in->cfg, ch, TCA_AICLASS_TRAIN_CLASSES,
			   AICLASS_DEF_TRAIN_CLASSES);
	unsigned int maj = in->handle >> 16;
	char name[16];

	class_name(name, sizeof(name), in, minor);
	ac_err("class %s does not exist on %s: aiclass %x: has latency bands "
	       "%x:1-%x:%x and training classes %x:11-%x:%x", name, in->dev,
	       maj, maj, maj, lat, maj, maj, 0x10 + trn);
	return EXIT_NODEV;
}

static void describe(char *buf, size_t len, const struct op *op)
{
	char h[16];

	if (op->kind == OP_CLASS || op->kind == OP_SLO) {
		class_name(h, sizeof(h), op->in, op->minor);
		snprintf(buf, len, "the change to %s class %s", op->in->dev, h);
	} else {
		aic_fmt_handle(h, sizeof(h), op->in->handle);
		snprintf(buf, len, "the change to %s (aiclass %s)", op->in->dev,
			 h);
	}
}

static int send_op(struct nl_sock *sk, const struct op *op, bool undo,
		   struct ac_nlerr *e)
{
	if (op->kind == OP_QDISC)
		return ac_send_qdisc_opts(sk, op->in,
					  undo ? &op->undo_opts : &op->opts,
					  false, e);
	if (op->kind == OP_SLO)
		return ac_send_class_slo(sk, op->in, op->minor,
					 undo ? op->undo_slo : op->slo, e);
	return ac_send_class_weight(sk, op->in, op->minor,
				    undo ? op->undo_weight : op->weight, e);
}

/* Undo ops[0..n-1], newest first.  Returns 0 if all were undone. */
static int roll_back(struct nl_sock *sk, struct op *ops, int n)
{
	struct ac_nlerr e;
	char what[96];
	int failed = 0;

	while (n-- > 0) {
		describe(what, sizeof(what), &ops[n]);
		if (!ops[n].can_undo) {
			ac_err("rollback: %s: previous value unknown, left "
			       "as changed", what + strlen("the change to "));
			failed++;
			continue;
		}
		if (send_op(sk, &ops[n], true, &e) < 0) {
			ac_report_nlerr("the rollback", &e);
			ac_err("rollback of %s failed; it keeps the new "
			       "value", what + strlen("the change to "));
			failed++;
		}
	}
	if (!failed)
		fprintf(stderr, "%s: nothing was changed (earlier steps "
			"rolled back)\n", progname);
	return failed;
}

struct target {
	const char *dev;
	uint32_t handle;	/* 0 = every aiclass on dev */
	bool create;		/* install a root aiclass if there is none */
	bool check;		/* only parse, check and print the change */
};

/* --check: the change as "set" reads it, or as JSON; nothing is sent. */
static int print_change(const struct ac_change *ch)
{
	struct aic_printer p;
	struct aic_json j;
	char c[16], t[16];
	int i;

	if (!ac_json) {
		ac_text_printer(stdout, &p);
		aic_print_opts(&ch->opts, &p);
		for (i = 0; i < ch->ncw; i++)
			printf("weight %s%x=%u ",
			       ch->cw[i].major ? aic_fmt_handle(c, sizeof(c),
			       ch->cw[i].major << 16) : "", ch->cw[i].minor,
			       ch->cw[i].weight);
		for (i = 0; i < ch->ncslo; i++)
			printf("slo %s%x=%s ",
			       ch->cslo[i].major ? aic_fmt_handle(c, sizeof(c),
			       ch->cslo[i].major << 16) : "", ch->cslo[i].minor,
			       ch->cslo[i].slo ? aic_fmt_time(t, sizeof(t),
			       ch->cslo[i].slo) : "off");
		putchar('\n');
		return fflush(stdout) ? EXIT_SYS : EXIT_OK;
	}
	jw_init(&j, stdout, ac_pretty);
	jw_printer(&j, &p);
	jw_obj_open(&j, NULL);
	jw_obj_open(&j, "options");
	aic_print_opts(&ch->opts, &p);
	jw_obj_close(&j);
	jw_obj_open(&j, "weights");
	for (i = 0; i < ch->ncw; i++) {
		snprintf(c, sizeof(c), "%x:%x", ch->cw[i].major,
			 ch->cw[i].minor);
		jw_u64(&j, c, ch->cw[i].weight);
	}
	jw_obj_close(&j);
	jw_obj_open(&j, "slo");
	for (i = 0; i < ch->ncslo; i++) {
		snprintf(c, sizeof(c), "%x:%x", ch->cslo[i].major,
			 ch->cslo[i].minor);
		jw_u64(&j, c, ch->cslo[i].slo);
	}
	jw_obj_close(&j);
	jw_obj_close(&j);
	return jw_end(&j) ? EXIT_SYS : EXIT_OK;
}

/* A new root aiclass 1: carrying every option of *ch. */
static int create_root(struct nl_sock *sk, int ifindex, const char *dev,
		       const struct ac_change *ch)
{
	struct ac_instance in = {
		.ifindex = ifindex,
		.handle = 0x10000,
		.parent = TC_H_ROOT,
	};
	struct aic_config c = ch->opts;
	struct ac_nlerr e;
	char what[256];
	int i, trn;

	snprintf(in.dev, sizeof(in.dev), "%s", dev);
	if (aic_check_major(&c, in.handle, what, sizeof(what))) {
		ac_err("%s", what);
		return EXIT_USAGE;
	}
	trn = count_of(&in.cfg, &c, TCA_AICLASS_TRAIN_CLASSES,
		       AICLASS_DEF_TRAIN_CLASSES);
	/* per-class weights go in the WEIGHTS list of the new qdisc */
	for (i = 0; i < ch->ncw; i++) {
		const struct ac_class_weight *w = &ch->cw[i];
		int idx = w->minor - AICLASS_TRAIN_MINOR_MIN;

		if ((w->major && w->major != 1) ||
		    !class_exists(&in, &c, w->minor))
			return unknown_class(&in, &c, w->minor);
		if (w->minor < AICLASS_TRAIN_MINOR_MIN) {
			ac_err("class 1:%x is a latency band: weights apply "
			       "to training classes 1:11 to 1:%x", w->minor,
			       0x10 + trn);
			return EXIT_USAGE;
		}
		if (!(c.have & AIC_BIT(TCA_AICLASS_WEIGHTS))) {
			c.have |= AIC_BIT(TCA_AICLASS_WEIGHTS);
			c.nweights = 0;
		}
		while ((int)c.nweights <= idx)
			c.weights[c.nweights++] = AICLASS_DEF_WEIGHT;
		c.weights[idx] = w->weight;
	}
	/* per-class SLOs go in the SLOS list of the new qdisc */
	for (i = 0; i < ch->ncslo; i++) {
		const struct ac_class_slo *s = &ch->cslo[i];
		int idx = s->minor - AICLASS_LAT_MINOR_MIN;

		if ((s->major && s->major != 1) ||
		    !class_exists(&in, &c, s->minor))
			return unknown_class(&in, &c, s->minor);
		if (s->minor >= AICLASS_TRAIN_MINOR_MIN) {
			ac_err("class 1:%x is a training class: an slo applies "
			       "to latency bands 1:1 to 1:%x", s->minor,
			       count_of(&in.cfg, &c, TCA_AICLASS_LAT_BANDS,
					AICLASS_DEF_LAT_BANDS));
			return EXIT_USAGE;
		}
		if (!(c.have & AIC_BIT(TCA_AICLASS_SLOS))) {
			c.have |= AIC_BIT(TCA_AICLASS_SLOS);
			c.nslos = 0;
		}
		while ((int)c.nslos <= idx)
			c.slos[c.nslos++] = 0;
		c.slos[idx] = s->slo;
	}
	snprintf(what, sizeof(what), "installing aiclass on %s", dev);
	if (ac_send_qdisc_opts(sk, &in, &c, true, &e) < 0)
		return ac_report_nlerr(what, &e);
	return EXIT_OK;
}

static int execute(struct nl_sock *sk, const struct target *tg,
		   const struct ac_change *ch)
{
	struct ac_state st;
	struct op *ops = NULL;
	int nops = 0, i, k, n, done, ifindex, err;
	struct ac_nlerr e;
	char what[256];

	if (aic_check_config(&ch->opts, what, sizeof(what)) ||
	    (tg->handle && aic_check_major(&ch->opts, tg->handle, what,
					   sizeof(what)))) {
		ac_err("%s", what);
		return EXIT_USAGE;
	}
	if (tg->check)
		return print_change(ch);

	ifindex = ac_dev_index(sk, tg->dev);
	if (ifindex < 0)
		return -ifindex;
	err = ac_read_state(sk, ifindex, &st);
	if (err)
		return err;
	if (tg->handle) {
		for (i = n = 0; i < st.ninst; i++)
			if (st.inst[i].handle == tg->handle)
				st.inst[n++] = st.inst[i];
		st.ninst = n;
	}
	if (!st.ninst) {
		ac_free_state(&st);
		if (tg->create && !tg->handle)
			return create_root(sk, ifindex, tg->dev, ch);
		if (tg->handle)
			ac_err("device \"%s\" has no aiclass qdisc with handle "
			       "%x:", tg->dev, tg->handle >> 16);
		else
			ac_err("device \"%s\" has no aiclass qdisc (install "
			       "one with: tc qdisc add dev %s root handle 1: "
			       "aiclass, or aiclassctl apply --create)",
			       tg->dev, tg->dev);
		return EXIT_NODEV;
	}

	/* Check everything before sending anything. */
	ops = calloc(st.ninst * (1 + ch->ncw + ch->ncslo), sizeof(*ops));
	if (!ops) {
		ac_free_state(&st);
		ac_err("out of memory");
		return EXIT_SYS;
	}
	err = EXIT_OK;
	for (i = 0; i < st.ninst && !err; i++) {
		struct ac_instance *in = &st.inst[i];

		/* priomap 2:1 on aiclass 1: is refused, not read as 1 */
		if (aic_check_major(&ch->opts, in->handle, what,
				    sizeof(what))) {
			ac_err("%s: %s", in->dev, what);
			err = EXIT_USAGE;
			break;
		}
		if (ch->opts.have & AIC_BIT(TCA_AICLASS_SLOS) &&
		    (int)ch->opts.nslos > count_of(&in->cfg, &ch->opts,
						  TCA_AICLASS_LAT_BANDS,
						  AICLASS_DEF_LAT_BANDS)) {
			ac_err("%s: Illegal \"slos\": %u given for %d latency "
			       "bands", in->dev, ch->opts.nslos,
			       count_of(&in->cfg, &ch->opts,
					TCA_AICLASS_LAT_BANDS,
					AICLASS_DEF_LAT_BANDS));
			err = EXIT_USAGE;
			break;
		}
		if (ch->opts.have) {
			struct op *op = &ops[nops++];

			op->kind = OP_QDISC;
			op->in = in;
			op->opts = ch->opts;
			op->can_undo = undo_config(&ch->opts, &in->cfg,
						   &op->undo_opts);
		}
		for (k = 0; k < ch->ncw && !err; k++) {
			const struct ac_class_weight *w = &ch->cw[k];
			struct op *op;

			if (w->major && w->major != in->handle >> 16) {
				char c[16], h[16];

				snprintf(c, sizeof(c), "%x:%x", w->major,
					 w->minor);
				ac_err("class %s does not belong to aiclass %s "
				       "on %s", c, aic_fmt_handle(h, sizeof(h),
				       in->handle), in->dev);
				err = EXIT_NODEV;
				break;
			}
			if (!class_exists(in, &ch->opts, w->minor)) {
				err = unknown_class(in, &ch->opts, w->minor);
				break;
			}
			op = &ops[nops++];
			op->kind = OP_CLASS;
			op->in = in;
			op->minor = w->minor;
			op->weight = w->weight;
			op->undo_weight = cur_weight(in, w->minor,
						     &op->can_undo);
		}
		for (k = 0; k < ch->ncslo && !err; k++) {
			const struct ac_class_slo *s = &ch->cslo[k];
			struct op *op;

			if (s->major && s->major != in->handle >> 16) {
				char c[16], h[16];

				snprintf(c, sizeof(c), "%x:%x", s->major,
					 s->minor);
				ac_err("class %s does not belong to aiclass %s "
				       "on %s", c, aic_fmt_handle(h, sizeof(h),
				       in->handle), in->dev);
				err = EXIT_NODEV;
				break;
			}
			if (!class_exists(in, &ch->opts, s->minor)) {
				err = unknown_class(in, &ch->opts, s->minor);
				break;
			}
			op = &ops[nops++];
			op->kind = OP_SLO;
			op->in = in;
			op->minor = s->minor;
			op->slo = s->slo;
			op->undo_slo = cur_slo(in, s->minor, &op->can_undo);
		}
	}

	/* Qdisc options first, then class weights and SLOs; undo on refusal. */
	for (done = 0; done < nops && !err; done++) {
		if (send_op(sk, &ops[done], false, &e) == 0)
			continue;
		describe(what, sizeof(what), &ops[done]);
		err = ac_report_nlerr(what, &e);
		if (done && roll_back(sk, ops, done))
			ac_err("the change is partly applied; check with "
			       "aiclassctl show dev %s", tg->dev);
	}
	free(ops);
	ac_free_state(&st);
	return err;
}

/* ------------------------------------------------------------------ */
/* Commands */

/* Takes "dev DEV", "handle H" and "--create" out of argv. */
static int take_target(int *argc, char **argv, struct target *tg,
		       bool allow_create)
{
	int i, n = 0;

	for (i = 0; i < *argc; i++) {
		if ((!strcmp(argv[i], "dev") || !strcmp(argv[i], "handle")) &&
		    i + 1 == *argc) {
			ac_err("\"%s\" needs a value", argv[i]);
			return EXIT_USAGE;
		}
		if (!strcmp(argv[i], "dev") && i + 1 < *argc) {
			if (tg->dev) {
				ac_err("duplicate \"dev\"");
				return EXIT_USAGE;
			}
			tg->dev = argv[++i];
		} else if (!strcmp(argv[i], "handle") && i + 1 < *argc) {
			if (aic_parse_handle(argv[++i], &tg->handle)) {
				ac_err("invalid handle \"%s\" (expected such "
				       "as 1:)", argv[i]);
				return EXIT_USAGE;
			}
		} else if (allow_create && !strcmp(argv[i], "--create")) {
			tg->create = true;
		} else if (!strcmp(argv[i], "--check")) {
			tg->check = true;
		} else {
			argv[n++] = argv[i];
		}
	}
	*argc = n;
	return 0;
}

int cmd_set(struct nl_sock *sk, int argc, char **argv)
{
	struct parse_ctx p = { .where = "set" };
	struct target tg = { 0 };
	struct ac_change ch;
	int err;

	memset(&ch, 0, sizeof(ch));
	err = take_target(&argc, argv, &tg, false);
	if (err)
		return err;
	if (!tg.dev && !tg.check) {
		ac_err("set: \"dev DEV\" is required");
		return EXIT_USAGE;
	}
	err = parse_keywords(&p, argc, argv, &ch);
	if (err)
		return err;
	if (!ch.opts.have && !ch.ncw && !ch.ncslo) {
		ac_err("set: nothing to change (see aiclassctl help set)");
		return EXIT_USAGE;
	}
	return execute(sk, &tg, &ch);
}

int cmd_apply(struct nl_sock *sk, int argc, char **argv)
{
	struct target tg = { 0 };
	struct file_cfg *fc;
	int err;

	err = take_target(&argc, argv, &tg, true);
	if (err)
		return err;
	if (argc != 1) {
		ac_err("apply: usage: aiclassctl apply FILE [dev DEV] "
		       "[handle H] [--create]");
		return EXIT_USAGE;
	}
	fc = calloc(1, sizeof(*fc));
	if (!fc) {
		ac_err("out of memory");
		return EXIT_SYS;
	}
	err = read_file(argv[0], fc);
	if (!err) {
		if (!tg.dev)
			tg.dev = fc->dev[0] ? fc->dev : NULL;
		if (!tg.dev && !tg.check) {
			ac_err("apply: %s names no device; add \"dev DEV\" "
			       "to the file or the command", argv[0]);
			err = EXIT_USAGE;
		} else if (!fc->ch.opts.have && !fc->ch.ncw && !fc->ch.ncslo &&
			   !tg.create) {
			ac_err("apply: %s sets nothing", argv[0]);
			err = EXIT_USAGE;
		} else {
			err = execute(sk, &tg, &fc->ch);
		}
	}
	free(fc);
	return err;
}

int cmd_profile(struct nl_sock *sk, int argc, char **argv)
{
	struct target tg = { 0 };
	const struct ac_profile *pr;
	struct file_cfg *fc;
	bool print = false;
	size_t i;
	int err, n = 0, k;

	if (argc == 1 && !strcmp(argv[0], "list")) {
		for (i = 0; i < ac_nprofiles; i++)
			printf("%-10s %s\n", ac_profiles[i].name,
			       ac_profiles[i].summary);
		return EXIT_OK;
	}
	err = take_target(&argc, argv, &tg, true);
	if (err)
		return err;
	for (k = 0; k < argc; k++) {
		if (!strcmp(argv[k], "--print"))
			print = true;
		else
			argv[n++] = argv[k];
	}
	if (n != 1 || (!print && !tg.dev && !tg.check)) {
		ac_err("profile: usage: aiclassctl profile NAME dev DEV "
		       "[handle H] [--create] | profile NAME --print | "
		       "profile list");
		return EXIT_USAGE;
	}
	pr = ac_profile_by_name(argv[0]);
	if (!pr) {
		ac_err("unknown profile \"%s\" (aiclassctl profile list)",
		       argv[0]);
		return EXIT_USAGE;
	}
	if (print) {
		printf("# aiclassctl profile %s\n%s", pr->name, pr->text);
		return EXIT_OK;
	}
	fc = calloc(1, sizeof(*fc));
	if (!fc) {
		ac_err("out of memory");
		return EXIT_SYS;
	}
	err = parse_text(argv[0], pr->text, strlen(pr->text), fc, 1);
	if (!err)
		err = execute(sk, &tg, &fc->ch);
	free(fc);
	return err;
}
