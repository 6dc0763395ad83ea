// SPDX-License-Identifier: GPL-2.0
/*
 * units.c	tc-style values: sizes (64Kb), times (10ms), rates (100Mbit),
 *		class ids and handles, parsed as tc's get_size(), get_time()
 *		and get_rate64() read them, and printed exactly, so that what
 *		is printed parses back to the same number.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "aiclass.h"

struct unit {
	const char *suffix;
	double scale;
};

/* "12.5mbit" -> 12.5 and "mbit"; no sign, no blanks, no hex, no inf. */
static int split_number(const char *s, double *num, const char **suffix)
{
	char *end;

	if (!s || !(s[0] >= '0' && s[0] <= '9'))
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return -EINVAL;
	errno = 0;
	*num = strtod(s, &end);
	if (errno || !isfinite(*num) || *num < 0)
		return -ERANGE;
	*suffix = end;
	return 0;
}

static int scale_by(const char *s, const struct unit *u, size_t n,
		    double *out)
{
	const char *suffix;
	double num;
	size_t i;
	int err;

	err = split_number(s, &num, &suffix);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		if (!strcasecmp(suffix, u[i].suffix)) {
			*out = num * u[i].scale;
			return 0;
		}
	}
	return -EINVAL;
}

/* Rounded to the unit; a value above 0 that rounds to 0 is -EDOM, so
 * that "rate 1bit" cannot turn into 0, which an option reads as off.
 */
static int to_u64(double v, uint64_t *out)
{
	double r = round(v);

	if (r < 0 || r >= 18446744073709551616.0)
		return -ERANGE;
	if (v > 0 && r == 0)
		return -EDOM;
	*out = (uint64_t)r;
	return 0;
}

int aic_parse_count(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (!s || !(s[0] >= '0' && s[0] <= '9'))
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*v = x;
	return 0;
}

/* As tc's get_size(): a plain number is bytes, k/m/g are 1024s. */
int aic_parse_size(const char *s, uint64_t *bytes)
{
	static const struct unit u[] = {
		{ "", 1 }, { "b", 1 },
		{ "k", 1024 }, { "kb", 1024 },
		{ "m", 1024 * 1024 }, { "mb", 1024 * 1024 },
		{ "g", 1024.0 * 1024 * 1024 }, { "gb", 1024.0 * 1024 * 1024 },
		{ "kbit", 1024 / 8.0 }, { "mbit", 1024 * 1024 / 8.0 },
		{ "gbit", 1024.0 * 1024 * 1024 / 8 },
	};
	double v;
	int err = scale_by(s, u, ARRAY_SIZE(u), &v);

	return err ? err : to_u64(v, bytes);
}

/*
 * As tc's get_time(): a plain number is microseconds, and there is no ns
 * (tc refuses "10ns" too).  The module counts whole microseconds: 1.5us
 * or 0.0001s is -EDOM rather than rounded (10ns once became 0, "off").
 */
int aic_parse_time(const char *s, uint64_t *usec)
{
	static const struct unit u[] = {
		{ "", 1 }, { "us", 1 }, { "usec", 1 }, { "usecs", 1 },
		{ "ms", 1000 }, { "msec", 1000 }, { "msecs", 1000 },
		{ "s", 1000000 }, { "sec", 1000000 }, { "secs", 1000000 },
	};
	double v;
	int err = scale_by(s, u, ARRAY_SIZE(u), &v);

	if (err)
		return err;
	/* 1.1ms is 1100.0000000000002us in a double: a relative tolerance */
	if (fabs(v - round(v)) > 1e-9 * (v > 1 ? v : 1))
		return -EDOM;
	return to_u64(v, usec);
}

/* As tc's get_rate64(): a plain number is bits per second. */
int aic_parse_rate(const char *s, uint64_t *bytes_per_s)
{
	static const struct unit u[] = {
		{ "", 1 }, { "bit", 1 },
		{ "kibit", 1024 }, { "kbit", 1000 },
		{ "mibit", 1024.0 * 1024 }, { "mbit", 1e6 },
		{ "gibit", 1024.0 * 1024 * 1024 }, { "gbit", 1e9 },
		{ "tibit", 1024.0 * 1024 * 1024 * 1024 }, { "tbit", 1e12 },
		{ "bps", 8 },
		{ "kibps", 8 * 1024 }, { "kbps", 8e3 },
		{ "mibps", 8 * 1024.0 * 1024 }, { "mbps", 8e6 },
		{ "gibps", 8 * 1024.0 * 1024 * 1024 }, { "gbps", 8e9 },
		{ "tibps", 8 * 1024.0 * 1024 * 1024 * 1024 }, { "tbps", 8e12 },
	};
	double v;
	int err = scale_by(s, u, ARRAY_SIZE(u), &v);

	return err ? err : to_u64(v / 8, bytes_per_s);
}

/* Seconds, fractions allowed ("0.5", "500ms"). */
int aic_parse_seconds(const char *s, double *sec)
{
	static const struct unit u[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 0.001 },
	};

	return scale_by(s, u, ARRAY_SIZE(u), sec);
}

static int parse_hex16(const char *s, size_t n, uint32_t *v)
{
	uint32_t x = 0;
	size_t i;

	if (n == 0 || n > 4)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		char c = s[i];
		int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -EINVAL;
		x = x * 16 + d;
	}
	*v = x;
	return 0;
}

int aic_parse_classid(const char *s, uint32_t *major, uint32_t *minor)
{
	const char *colon = strchr(s, ':');
	uint32_t maj = 0;

	if (colon) {
		if (colon != s &&
		    (parse_hex16(s, colon - s, &maj) || maj == 0))
			return -EINVAL;
		s = colon + 1;
	}
	if (parse_hex16(s, strlen(s), minor))
		return -EINVAL;
	*major = maj;
	return 0;
}

bool aic_minor_ok(uint32_t minor)
{
	return (minor >= AICLASS_LAT_MINOR_MIN &&
		minor <= AICLASS_LAT_MINOR_MAX) ||
	       (minor >= AICLASS_TRAIN_MINOR_MIN &&
		minor <= AIC_TRAIN_MINOR_LAST);
}

/* A qdisc handle: "1:" or "1" (hex), major only. */
int aic_parse_handle(const char *s, uint32_t *h)
{
	size_t n = strlen(s);
	uint32_t maj;

	if (n && s[n - 1] == ':')
		n--;
	if (parse_hex16(s, n, &maj) || !maj)
		return -EINVAL;
	*h = maj << 16;
	return 0;
}

char *aic_fmt_size(char *buf, size_t len, uint64_t v)
{
	if (v && !(v % (1024ULL * 1024 * 1024)))
		snprintf(buf, len, "%lluGb", (unsigned long long)(v >> 30));
	else if (v && !(v % (1024 * 1024)))
		snprintf(buf, len, "%lluMb", (unsigned long long)(v >> 20));
	else if (v && !(v % 1024))
		snprintf(buf, len, "%lluKb", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%llub", (unsigned long long)v);
	return buf;
}

char *aic_fmt_time(char *buf, size_t len, uint64_t us)
{
	if (us && !(us % 1000000))
		snprintf(buf, len, "%llus", (unsigned long long)(us / 1000000));
	else if (us && !(us % 1000))
		snprintf(buf, len, "%llums", (unsigned long long)(us / 1000));
	else
		snprintf(buf, len, "%lluus", (unsigned long long)us);
	return buf;
}

char *aic_fmt_rate(char *buf, size_t len, uint64_t bytes)
{
	uint64_t bits = bytes * 8;

	if (bytes > UINT64_MAX / 8)
		snprintf(buf, len, "%llubps", (unsigned long long)bytes);
	else if (bits && !(bits % 1000000000))
		snprintf(buf, len, "%lluGbit",
			 (unsigned long long)(bits / 1000000000));
	else if (bits && !(bits % 1000000))
		snprintf(buf, len, "%lluMbit",
			 (unsigned long long)(bits / 1000000));
	else if (bits && !(bits % 1000))
		snprintf(buf, len, "%lluKbit", (unsigned long long)(bits / 1000));
	else
		snprintf(buf, len, "%llubit", (unsigned long long)bits);
	return buf;
}

char *aic_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns >= 1000000000)
		snprintf(buf, len, "%.2fs", ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else if (ns >= 1000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	return buf;
}

/* A measured rate, for people: "12.3Mbit". */
char *aic_fmt_rate_approx(char *buf, size_t len, double bytes_per_s)
{
	double bits = bytes_per_s * 8;

	if (bits >= 1e9)
		snprintf(buf, len, "%.1fGbit", bits / 1e9);
	else if (bits >= 1e6)
		snprintf(buf, len, "%.1fMbit", bits / 1e6);
	else if (bits >= 1e3)
		snprintf(buf, len, "%.1fKbit", bits / 1e3);
	else
		snprintf(buf, len, "%.0fbit", bits);
	return buf;
}

char *aic_fmt_handle(char *buf, size_t len, uint32_t h)
{
	if (h == 0xffffffffU)
		snprintf(buf, len, "root");
	else if ((h & 0xffff) == 0)
		snprintf(buf, len, "%x:", h >> 16);
	else
		snprintf(buf, len, "%x:%x", h >> 16, h & 0xffff);
	return buf;
}
