// SPDX-License-Identifier: GPL-2.0
/*
 * json.c	a small streaming JSON writer: objects, arrays, strings,
 *		integers, doubles, booleans and null; compact on one line, or
 *		pretty (two-space indent) as "ip -j -p" prints.
 *
 * Strings: valid UTF-8 passes through; every byte that is not part of a
 * valid UTF-8 sequence (a stray continuation byte, a truncated or overlong
 * sequence, a surrogate, anything above U+10FFFF) is written as U+FFFD
 * ("\ufffd"), one per byte; control characters as \n, \t or \u00XX.
 * Nesting deeper than AIC_JSON_DEPTH is a bug of the caller: the writer
 * says so on stderr, writes nothing more, and jw_end() returns -1.
 */
#include <math.h>
#include <string.h>

#include "aiclass.h"

void jw_init(struct aic_json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
	j->first[0] = true;
}

static void newline(struct aic_json *j)
{
	int i;

	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Length of the valid UTF-8 sequence at p, or 0. */
static int utf8_len(const unsigned char *p)
{
	unsigned int cp;
	int n, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static void put_string(struct aic_json *j, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', j->f);
	while (*p) {
		int n = utf8_len(p);

		if (n == 0) {
			fputs("\\ufffd", j->f);
			p++;
			continue;
		}
		if (n > 1) {
			fwrite(p, 1, n, j->f);
			p += n;
			continue;
		}
		if (*p == '"' || *p == '\\')
			fprintf(j->f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", j->f);
		else if (*p == '\t')
			fputs("\\t", j->f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(j->f, "\\u%04x", *p);
		else
			fputc(*p, j->f);
		p++;
	}
	fputc('"', j->f);
}

/* Separator, newline and key before a value; false once failed. */
static bool member(struct aic_json *j, const char *key)
{
	if (j->failed)
		return false;
	if (j->depth > 0) {
		if (!j->first[j->depth])
			fputc(',', j->f);
		newline(j);
	}
	j->first[j->depth] = false;
	if (key && j->depth > 0) {
		put_string(j, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
	return true;
}

static void open_(struct aic_json *j, const char *key, char c)
{
	if (!j->failed && j->depth + 1 >= AIC_JSON_DEPTH) {
		fprintf(stderr, "json: nesting deeper than %d levels\n",
			AIC_JSON_DEPTH - 1);
		j->failed = true;
	}
	if (!member(j, key))
		return;
	fputc(c, j->f);
	j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct aic_json *j, char c)
{
	bool empty;

	if (j->failed)
		return;
	if (j->depth == 0) {
		fprintf(stderr, "json: '%c' closes nothing\n", c);
		j->failed = true;
		return;
	}
	empty = j->first[j->depth];
	j->depth--;
	if (!empty)
		newline(j);
	fputc(c, j->f);
}

void jw_obj_open(struct aic_json *j, const char *key)
{
	open_(j, key, '{');
}

void jw_obj_close(struct aic_json *j)
{
	close_(j, '}');
}

void jw_arr_open(struct aic_json *j, const char *key)
{
	open_(j, key, '[');
}

void jw_arr_close(struct aic_json *j)
{
	close_(j, ']');
}

void jw_str(struct aic_json *j, const char *key, const char *v)
{
	if (member(j, key))
		put_string(j, v);
}

void jw_u64(struct aic_json *j, const char *key, uint64_t v)
{
	if (member(j, key))
		fprintf(j->f, "%llu", (unsigned long long)v);
}

void jw_s64(struct aic_json *j, const char *key, int64_t v)
{
	if (member(j, key))
		fprintf(j->f, "%lld", (long long)v);
}

void jw_double(struct aic_json *j, const char *key, double v)
{
	if (!member(j, key))
		return;
	if (isfinite(v))
		fprintf(j->f, "%.3f", v);
	else
		fputs("null", j->f);
}

void jw_bool(struct aic_json *j, const char *key, bool v)
{
	if (member(j, key))
		fputs(v ? "true" : "false", j->f);
}

void jw_null(struct aic_json *j, const char *key)
{
	if (member(j, key))
		fputs("null", j->f);
}

int jw_end(struct aic_json *j)
{
	if (!j->failed && j->depth != 0) {
		fprintf(stderr, "json: %d levels left open\n", j->depth);
		j->failed = true;
	}
	fputc('\n', j->f);
	fflush(j->f);
	return j->failed ? -1 : 0;
}

static void pr_u64(void *ctx, const char *key, uint64_t v)
{
	jw_u64(ctx, key, v);
}

static void pr_s64(void *ctx, const char *key, int64_t v)
{
	jw_s64(ctx, key, v);
}

static void pr_str(void *ctx, const char *key, const char *v)
{
	jw_str(ctx, key, v);
}

static void pr_arr_open(void *ctx, const char *key)
{
	jw_arr_open(ctx, key);
}

static void pr_arr_close(void *ctx)
{
	jw_arr_close(ctx);
}

void jw_printer(struct aic_json *j, struct aic_printer *p)
{
	memset(p, 0, sizeof(*p));
	p->u64 = pr_u64;
	p->s64 = pr_s64;
	p->str = pr_str;
	p->arr_open = pr_arr_open;
	p->arr_close = pr_arr_close;
	p->ctx = j;
}
