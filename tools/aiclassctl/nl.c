// SPDX-License-Identifier: GPL-2.0
/*
 * nl.c		aiclassctl's rtnetlink side, on libnl-3: dump aiclass qdiscs
 *		and their classes into struct ac_state, send qdisc option and
 *		class weight and SLO changes, and report the kernel's extack
 *		message.
 *
 * libnl-route-3 has no module for the aiclass kind, so the requests are
 * built from raw libnl messages: a struct tcmsg, TCA_KIND and our own
 * TCA_OPTIONS nest.  rtnl_qdisc_build_change_request() would only save the
 * tcmsg and would add NLM_F_REPLACE, which a change does not need.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/socket.h>

#include "aiclassctl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

double ac_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int ac_nl_open(struct nl_sock **skp)
{
	struct nl_sock *sk;
	int one = 1;
	int err;

	sk = nl_socket_alloc();
	if (!sk) {
		ac_err("out of memory");
		return EXIT_SYS;
	}
	err = nl_connect(sk, NETLINK_ROUTE);
	if (err < 0) {
		ac_err("cannot open rtnetlink socket: %s", nl_geterror(err));
		nl_socket_free(sk);
		return EXIT_SYS;
	}
	/* Ask for the kernel's error text; harmless if unsupported. */
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	*skp = sk;
	return 0;
}

void ac_nl_close(struct nl_sock *sk)
{
	nl_socket_free(sk);
}

/* Returns the ifindex, or a negative exit code after saying why. */
int ac_dev_index(struct nl_sock *sk, const char *dev)
{
	struct rtnl_link *link = NULL;
	int err, ifindex;

	if (strlen(dev) >= IF_NAMESIZE) {
		ac_err("device name \"%s\" is too long", dev);
		return -EXIT_USAGE;
	}
	err = rtnl_link_get_kernel(sk, 0, dev, &link);
	if (err == -NLE_OBJ_NOTFOUND || err == -NLE_NODEV) {
		ac_err("device \"%s\" does not exist", dev);
		return -EXIT_NODEV;
	}
	if (err < 0) {
		ac_err("cannot look up device \"%s\": %s", dev,
		       nl_geterror(err));
		return -EXIT_SYS;
	}
	ifindex = rtnl_link_get_ifindex(link);
	rtnl_link_put(link);
	return ifindex;
}

/* ------------------------------------------------------------------ */
/* Requests, acks and extack */

struct req_ctx {
	struct ac_nlerr *e;
	struct nl_msg *sent;
	nl_recvmsg_msg_cb_t valid;
	void *arg;
};

static void copy_extack(struct nlmsghdr *h, char *out, size_t outlen,
			uint32_t *offs)
{
	struct nlmsgerr *err = nlmsg_data(h);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*err);
	int len;

	out[0] = '\0';
	*offs = 0;
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	/* Unless capped, the request we sent sits between the two. */
	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
	len = (int)nlmsg_datalen(h) - (int)off;
	if (len <= 0)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)err + off), len, NULL) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG] && nla_len(tb[NLMSGERR_ATTR_MSG]) > 0) {
		size_t n = nla_len(tb[NLMSGERR_ATTR_MSG]);

		if (n >= outlen)
			n = outlen - 1;
		memcpy(out, nla_data(tb[NLMSGERR_ATTR_MSG]), n);
		out[n] = '\0';
		/* the kernel counts the NUL; trim it and a final newline */
		n = strlen(out);
		while (n && (out[n - 1] == '\n' || out[n - 1] == '.'))
			out[--n] = '\0';
	}
	if (tb[NLMSGERR_ATTR_OFFS] && nla_len(tb[NLMSGERR_ATTR_OFFS]) >= 4)
		*offs = nla_get_u32(tb[NLMSGERR_ATTR_OFFS]);
}

/*
 * The kernel blames an attribute by its offset in our request: find the
 * member of TCA_OPTIONS that holds that offset.
 */
static int blamed_option(struct nl_msg *sent, uint32_t offs)
{
	struct nlmsghdr *h = nlmsg_hdr(sent);
	struct nlattr *a, *o;
	int rem, rem2;

	if (!offs)
		return 0;
	nlmsg_for_each_attr(a, h, sizeof(struct tcmsg), rem) {
		uint32_t start = (char *)a - (char *)h;

		if (offs < start || offs >= start + nla_total_size(nla_len(a)))
			continue;
		if (nla_type(a) != TCA_OPTIONS)
			return 0;
		nla_for_each_nested(o, a, rem2) {
			start = (char *)o - (char *)h;
			if (offs >= start &&
			    offs < start + nla_total_size(nla_len(o)))
				return nla_type(o);
		}
	}
	return 0;
}

/* First look at every message: keep the error and extack text. */
static int msg_in_cb(struct nl_msg *msg, void *arg)
{
	struct req_ctx *ctx = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct nlmsgerr *err;
	char text[256];
	uint32_t offs;

	if (h->nlmsg_type != NLMSG_ERROR ||
	    nlmsg_datalen(h) < (int)sizeof(*err))
		return NL_OK;
	err = nlmsg_data(h);
	copy_extack(h, text, sizeof(text), &offs);
	if (err->error) {
		ctx->e->err = -err->error;
		memcpy(ctx->e->msg, text, sizeof(text));
		ctx->e->msgtype = nlmsg_hdr(ctx->sent)->nlmsg_type;
		ctx->e->bad_attr = blamed_option(ctx->sent, offs);
	} else if (text[0]) {
		fprintf(stderr, "%s: warning: %s\n", progname, text);
	}
	return NL_OK;
}

static int ack_cb(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_STOP;
}

static int err_cb(struct sockaddr_nl *nla, struct nlmsgerr *err, void *arg)
{
	(void)nla;
	(void)err;
	(void)arg;
	return NL_STOP;
}

static int valid_cb(struct nl_msg *msg, void *arg)
{
	struct req_ctx *ctx = arg;

	return ctx->valid ? ctx->valid(msg, ctx->arg) : NL_OK;
}

/*
 * Send msg (freed here) and read the answer: the dump parts through
 * valid(), then NLMSG_DONE, or the ack.  0 on success, -1 with *e filled.
 */
static int ac_request(struct nl_sock *sk, struct nl_msg *msg,
		      nl_recvmsg_msg_cb_t valid, void *arg, struct ac_nlerr *e)
{
	struct req_ctx ctx = {
		.e = e, .sent = msg, .valid = valid, .arg = arg,
	};
	struct nl_cb *cb;
	int err;

	memset(e, 0, sizeof(*e));
	err = nl_send_auto(sk, msg);
	if (err < 0) {
		nlmsg_free(msg);
		e->nlerr = -err;
		return -1;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		e->nlerr = NLE_NOMEM;
		return -1;
	}
	nl_cb_set(cb, NL_CB_MSG_IN, NL_CB_CUSTOM, msg_in_cb, &ctx);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, valid_cb, &ctx);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, ack_cb, &ctx);
	nl_cb_err(cb, NL_CB_CUSTOM, err_cb, &ctx);
	err = nl_recvmsgs(sk, cb);
	nl_cb_put(cb);
	nlmsg_free(msg);
	if (e->err)
		return -1;
	if (err < 0) {
		e->nlerr = -err;
		return -1;
	}
	return 0;
}

int ac_report_nlerr(const char *what, const struct ac_nlerr *e)
{
	if (e->err == EPERM || e->err == EACCES) {
		ac_err("permission denied for %s (changing a qdisc needs "
		       "CAP_NET_ADMIN; run as root)", what);
		return EXIT_PERM;
	}
	if (e->err) {
		const struct aic_opt *o = aic_opt_by_attr(e->bad_attr);
		const char *at = NULL;

		if (e->msgtype == RTM_NEWTCLASS &&
		    e->bad_attr == TCA_AICLASS_CLASS_WEIGHT)
			at = "weight";
		else if (e->msgtype == RTM_NEWTCLASS &&
			 e->bad_attr == TCA_AICLASS_CLASS_SLO)
			at = "slo";
		else if (e->msgtype == RTM_NEWQDISC && o)
			at = o->name;
		ac_err("kernel refused %s: %s%s%s (%s)", what,
		       e->msg[0] ? e->msg : strerror(e->err),
		       at ? " at " : "", at ? at : "",
		       e->msg[0] ? strerror(e->err) : "error");
		return e->err == ENODEV ? EXIT_NODEV : EXIT_KERNEL;
	}
	ac_err("netlink error in %s: %s", what, nl_geterror(e->nlerr));
	return EXIT_SYS;
}

/* ------------------------------------------------------------------ */
/* Parsing dumps */

static uint64_t get_uint(struct nlattr *a)
{
	switch (nla_len(a)) {
	case 1:
		return nla_get_u8(a);
	case 2:
		return nla_get_u16(a);
	case 4:
		return nla_get_u32(a);
	default:
		if (nla_len(a) >= 8) {
			uint64_t v;

			memcpy(&v, nla_data(a), sizeof(v));
			return v;
		}
		return 0;
	}
}

/* TCA_STATS2: generic basic/queue stats and our TCA_STATS_APP nest. */
static void parse_stats2(struct nlattr *stats, struct ac_basic *b,
			 struct aic_stats *q, struct aic_stats *cl)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, stats, rem) {
		switch (nla_type(a)) {
		case TCA_STATS_BASIC: {
			struct gnet_stats_basic gb = { 0 };
			size_t n = nla_len(a);

			memcpy(&gb, nla_data(a), n < sizeof(gb) ? n : sizeof(gb));
			b->bytes = gb.bytes;
			if (!b->packets)
				b->packets = gb.packets;
			b->have_basic = true;
			break;
		}
		case TCA_STATS_PKT64:
			b->packets = get_uint(a);
			break;
		case TCA_STATS_QUEUE: {
			struct gnet_stats_queue q = { 0 };
			size_t n = nla_len(a);

			memcpy(&q, nla_data(a), n < sizeof(q) ? n : sizeof(q));
			b->qlen = q.qlen;
			b->backlog = q.backlog;
			b->drops = q.drops;
			b->requeues = q.requeues;
			b->overlimits = q.overlimits;
			b->have_queue = true;
			break;
		}
		case TCA_STATS_APP: {
			bool hq, hc;

			aic_decode_xstats(nla_data(a), nla_len(a), q, cl,
					  &hq, &hc);
			break;
		}
		}
	}
}

struct dump_ctx {
	struct ac_state *st;
	int ifindex;		/* 0 = every device */
	struct ac_class *cls;	/* class dump: collected here */
	int ncls, maxcls;
	int error;
};

static bool is_aiclass(struct nlattr **tb)
{
	return tb[TCA_KIND] && !strcmp(nla_get_string(tb[TCA_KIND]), "aiclass");
}

static int qdisc_cb(struct nl_msg *msg, void *arg)
{
	struct dump_ctx *d = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct nlattr *tb[TCA_MAX + 1];
	struct ac_instance *in, *p;
	struct tcmsg *t;

	if (h->nlmsg_type != RTM_NEWQDISC)
		return NL_OK;
	if (nlmsg_parse(h, sizeof(*t), tb, TCA_MAX, NULL) < 0)
		return NL_OK;
	t = nlmsg_data(h);
	if (!is_aiclass(tb) || (d->ifindex && t->tcm_ifindex != d->ifindex))
		return NL_OK;

	p = realloc(d->st->inst, (d->st->ninst + 1) * sizeof(*p));
	if (!p) {
		d->error = ENOMEM;
		return NL_STOP;
	}
	d->st->inst = p;
	in = &p[d->st->ninst++];
	memset(in, 0, sizeof(*in));
	in->ifindex = t->tcm_ifindex;
	in->handle = t->tcm_handle;
	in->parent = t->tcm_parent;
	in->rate_bytes = in->rate_pkts = -1;
	if (!if_indextoname(in->ifindex, in->dev))
		snprintf(in->dev, sizeof(in->dev), "if%d", in->ifindex);
	if (tb[TCA_OPTIONS])
		aic_decode_opts(nla_data(tb[TCA_OPTIONS]),
				nla_len(tb[TCA_OPTIONS]), &in->cfg);
	if (tb[TCA_STATS2])
		parse_stats2(tb[TCA_STATS2], &in->b, &in->st, NULL);
	return NL_OK;
}

static int class_cb(struct nl_msg *msg, void *arg)
{
	struct dump_ctx *d = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct nlattr *tb[TCA_MAX + 1];
	struct ac_class *cl;
	struct tcmsg *t;

	if (h->nlmsg_type != RTM_NEWTCLASS)
		return NL_OK;
	if (nlmsg_parse(h, sizeof(*t), tb, TCA_MAX, NULL) < 0)
		return NL_OK;
	t = nlmsg_data(h);
	if (!is_aiclass(tb) || t->tcm_ifindex != d->ifindex)
		return NL_OK;
	if (d->ncls == d->maxcls) {
		int max = d->maxcls ? 2 * d->maxcls : 32;
		struct ac_class *p = realloc(d->cls, max * sizeof(*p));

		if (!p) {
			d->error = ENOMEM;
			return NL_STOP;
		}
		d->cls = p;
		d->maxcls = max;
	}
	cl = &d->cls[d->ncls++];
	memset(cl, 0, sizeof(*cl));
	cl->classid = t->tcm_handle;
	cl->rate_bytes = cl->rate_pkts = -1;
	if (tb[TCA_STATS2])
		parse_stats2(tb[TCA_STATS2], &cl->b, NULL, &cl->cs);
	if (tb[TCA_OPTIONS]) {
		struct nlattr *a;
		int rem;

		nla_for_each_nested(a, tb[TCA_OPTIONS], rem) {
			int cs;

			/* the class options, where stats lack them */
			if (nla_type(a) == TCA_AICLASS_CLASS_WEIGHT &&
			    nla_len(a) == 4)
				cs = TCA_AICLASS_CSTATS_WEIGHT;
			else if (nla_type(a) == TCA_AICLASS_CLASS_KIND &&
				 nla_len(a) == 1)
				cs = TCA_AICLASS_CSTATS_KIND;
			else if (nla_type(a) == TCA_AICLASS_CLASS_SLO &&
				 nla_len(a) == 4)
				cs = TCA_AICLASS_CSTATS_SLO;
			else
				continue;
			if (!cl->cs.width[cs]) {
				cl->cs.v[cs] = get_uint(a);
				cl->cs.width[cs] = nla_len(a);
			}
		}
	}
	return NL_OK;
}

static struct nl_msg *dump_msg(int type, int ifindex)
{
	struct tcmsg t = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex };
	struct nl_msg *msg = nlmsg_alloc_simple(type, NLM_F_DUMP);

	if (!msg)
		return NULL;
	if (nlmsg_append(msg, &t, sizeof(t), NLMSG_ALIGNTO) < 0 ||
	    (type == RTM_GETQDISC && nla_put_flag(msg, TCA_DUMP_INVISIBLE))) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int cmp_class(const void *a, const void *b)
{
	const struct ac_class *x = a, *y = b;

	return (x->classid > y->classid) - (x->classid < y->classid);
}

static int dump_classes(struct nl_sock *sk, struct ac_state *st, int ifindex)
{
	struct dump_ctx d = { .st = st, .ifindex = ifindex };
	struct ac_nlerr e;
	struct nl_msg *msg;
	int i, k;

	msg = dump_msg(RTM_GETTCLASS, ifindex);
	if (!msg)
		return -ENOMEM;
	if (ac_request(sk, msg, class_cb, &d, &e) < 0 || d.error) {
		free(d.cls);
		if (d.error)
			return -d.error;
		ac_report_nlerr("the class dump", &e);
		return -EIO;
	}
	qsort(d.cls, d.ncls, sizeof(*d.cls), cmp_class);
	for (i = 0; i < st->ninst; i++) {
		struct ac_instance *in = &st->inst[i];

		if (in->ifindex != ifindex)
			continue;
		for (k = 0; k < d.ncls; k++) {
			if ((d.cls[k].classid & 0xffff0000) != in->handle ||
			    in->ncls == AICLASS_MAX_CLASSES)
				continue;
			in->cls[in->ncls++] = d.cls[k];
		}
	}
	free(d.cls);
	return 0;
}

/*
 * Read every aiclass instance (on ifindex, or everywhere when 0) with its
 * options, stats and classes.  Returns 0, or an exit code after saying why.
 */
int ac_read_state(struct nl_sock *sk, int ifindex, struct ac_state *st)
{
	struct dump_ctx d = { .st = st, .ifindex = ifindex };
	struct ac_nlerr e;
	struct nl_msg *msg;
	int i, k, err;

	memset(st, 0, sizeof(*st));
	msg = dump_msg(RTM_GETQDISC, 0);
	if (!msg) {
		ac_err("out of memory");
		return EXIT_SYS;
	}
	if (ac_request(sk, msg, qdisc_cb, &d, &e) < 0)
		return ac_report_nlerr("the qdisc dump", &e);
	if (d.error) {
		ac_err("qdisc dump: %s", strerror(d.error));
		return EXIT_SYS;
	}
	/* one class dump per device that has an instance */
	for (i = 0; i < st->ninst; i++) {
		for (k = 0; k < i; k++)
			if (st->inst[k].ifindex == st->inst[i].ifindex)
				break;
		if (k < i)
			continue;
		err = dump_classes(sk, st, st->inst[i].ifindex);
		if (err) {
			ac_free_state(st);
			if (err == -ENOMEM)
				ac_err("out of memory");
			return EXIT_SYS;
		}
	}
	st->when = ac_now();
	return 0;
}

void ac_free_state(struct ac_state *st)
{
	free(st->inst);
	st->inst = NULL;
	st->ninst = 0;
}

static void rate_of(const struct ac_basic *now, const struct ac_basic *prev,
		    double dt, double *rb, double *rp)
{
	if (dt <= 0 || now->bytes < prev->bytes ||
	    now->packets < prev->packets) {
		*rb = *rp = -1;
		return;
	}
	*rb = (now->bytes - prev->bytes) / dt;
	*rp = (now->packets - prev->packets) / dt;
}

void ac_compute_rates(struct ac_state *now, const struct ac_state *prev)
{
	double dt = now->when - prev->when;
	int i, k, c, q;

	for (i = 0; i < now->ninst; i++) {
		struct ac_instance *in = &now->inst[i];
		const struct ac_instance *pi = NULL;

		for (k = 0; k < prev->ninst; k++) {
			if (prev->inst[k].ifindex == in->ifindex &&
			    prev->inst[k].handle == in->handle) {
				pi = &prev->inst[k];
				break;
			}
		}
		if (!pi)
			continue;
		rate_of(&in->b, &pi->b, dt, &in->rate_bytes, &in->rate_pkts);
		for (c = 0; c < in->ncls; c++) {
			for (q = 0; q < pi->ncls; q++) {
				if (pi->cls[q].classid != in->cls[c].classid)
					continue;
				rate_of(&in->cls[c].b, &pi->cls[q].b, dt,
					&in->cls[c].rate_bytes,
					&in->cls[c].rate_pkts);
				break;
			}
		}
	}
}

/* ------------------------------------------------------------------ */
/* Changes */

static int put_options(struct nl_msg *msg, const struct aic_config *c)
{
	char buf[AIC_OPTS_MAX_LEN];
	int len = aic_encode_opts(c, buf, sizeof(buf));

	if (len < 0)
		return -NLE_NOMEM;
	return nla_put(msg, TCA_OPTIONS | NLA_F_NESTED, len, buf);
}

/* A change request to aiclass: *t, then TCA_KIND; NULL without memory. */
static struct nl_msg *aiclass_msg(int type, int flags, struct tcmsg *t)
{
	struct nl_msg *msg = nlmsg_alloc_simple(type, flags);

	if (!msg)
		return NULL;
	if (nlmsg_append(msg, t, sizeof(*t), NLMSG_ALIGNTO) < 0 ||
	    nla_put_string(msg, TCA_KIND, "aiclass") < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* A request that could not be built: *e says out of memory; -1. */
static int nomem(struct ac_nlerr *e)
{
	memset(e, 0, sizeof(*e));
	e->nlerr = NLE_NOMEM;
	return -1;
}

/*
 * One RTM_NEWQDISC carrying the options in *c: a change of instance *in,
 * or (create) a new root aiclass with handle in->handle on in->ifindex.
 */
int ac_send_qdisc_opts(struct nl_sock *sk, const struct ac_instance *in,
		       const struct aic_config *c, bool create,
		       struct ac_nlerr *e)
{
	struct tcmsg t = {
		.tcm_family = AF_UNSPEC,
		.tcm_ifindex = in->ifindex,
		.tcm_handle = in->handle,
		.tcm_parent = in->parent,
	};
	struct nl_msg *msg;

	msg = aiclass_msg(RTM_NEWQDISC,
			  create ? NLM_F_CREATE | NLM_F_REPLACE : 0, &t);
	if (!msg)
		return nomem(e);
	if (put_options(msg, c) < 0) {
		nlmsg_free(msg);
		return nomem(e);
	}
	return ac_request(sk, msg, NULL, NULL, e);
}

/* One RTM_NEWTCLASS with one u32 class option. */
static int send_class_u32(struct nl_sock *sk, const struct ac_instance *in,
			  uint8_t minor, int type, uint32_t v,
			  struct ac_nlerr *e)
{
	struct tcmsg t = {
		.tcm_family = AF_UNSPEC,
		.tcm_ifindex = in->ifindex,
		.tcm_handle = (in->handle & 0xffff0000) | minor,
	};
	struct nlattr *nest;
	struct nl_msg *msg;

	msg = aiclass_msg(RTM_NEWTCLASS, 0, &t);
	if (!msg)
		return nomem(e);
	nest = nla_nest_start(msg, TCA_OPTIONS | NLA_F_NESTED);
	if (!nest || nla_put_u32(msg, type, v) < 0 ||
	    nla_nest_end(msg, nest) < 0) {
		nlmsg_free(msg);
		return nomem(e);
	}
	return ac_request(sk, msg, NULL, NULL, e);
}

/* Like "tc class change ... classid X aiclass weight W". */
int ac_send_class_weight(struct nl_sock *sk, const struct ac_instance *in,
			 uint8_t minor, uint32_t weight, struct ac_nlerr *e)
{
	return send_class_u32(sk, in, minor, TCA_AICLASS_CLASS_WEIGHT, weight,
			      e);
}

/* Like "tc class change ... classid X aiclass slo TIME". */
int ac_send_class_slo(struct nl_sock *sk, const struct ac_instance *in,
		      uint8_t minor, uint32_t slo, struct ac_nlerr *e)
{
	return send_class_u32(sk, in, minor, TCA_AICLASS_CLASS_SLO, slo, e);
}
