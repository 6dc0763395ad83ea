// SPDX-License-Identifier: GPL-2.0
/*
 * json.c	a small streaming JSON writer: objects, arrays, strings,
 *		integers, doubles, booleans and null, indented two spaces.
 */
#include <math.h>
#include <string.h>

#include "aiclassctl.h"

void jw_init(struct ac_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->first[0] = true;
}

static void indent(struct ac_json *j)
{
	int i;

	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

static void put_string(struct ac_json *j, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', j->f);
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", j->f);
			break;
		case '\\':
			fputs("\\\\", j->f);
			break;
		case '\n':
			fputs("\\n", j->f);
			break;
		case '\t':
			fputs("\\t", j->f);
			break;
		default:
			if (*p < 0x20)
				fprintf(j->f, "\\u%04x", *p);
			else
				fputc(*p, j->f);
		}
	}
	fputc('"', j->f);
}

/* Separator, newline and key before a value. */
static void member(struct ac_json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			fputc(',', j->f);
		indent(j);
	}
	j->first[j->depth] = false;
	if (key) {
		put_string(j, key);
		fputs(": ", j->f);
	}
}

static void open_(struct ac_json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < (int)ARRAY_SIZE(j->first)) {
		j->depth++;
		j->first[j->depth] = true;
	}
}

static void close_(struct ac_json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty)
		indent(j);
	fputc(c, j->f);
}

void jw_obj_open(struct ac_json *j, const char *key)
{
	open_(j, key, '{');
}

void jw_obj_close(struct ac_json *j)
{
	close_(j, '}');
}

void jw_arr_open(struct ac_json *j, const char *key)
{
	open_(j, key, '[');
}

void jw_arr_close(struct ac_json *j)
{
	close_(j, ']');
}

void jw_str(struct ac_json *j, const char *key, const char *v)
{
	member(j, key);
	put_string(j, v);
}

void jw_u64(struct ac_json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void jw_s64(struct ac_json *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->f, "%lld", (long long)v);
}

void jw_double(struct ac_json *j, const char *key, double v)
{
	member(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.3f", v);
	else
		fputs("null", j->f);
}

void jw_bool(struct ac_json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void jw_null(struct ac_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

void jw_end(struct ac_json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}
